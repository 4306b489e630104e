package dbf0.kv.storage.wal;

import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log's open file and the state every mechanism of {@link WalStore} shares, under one lock.
 *
 * <p>{@link #lock} is held for every append and the apply that follows it, and for everything else
 * that touches the file, its size or the rewrite: log order is apply order. It is not held across a
 * background {@link #force}. Only the writer thread switches {@link #file}, so that thread may read
 * it without the lock.
 */
final class WalLog {

    private static final Logger LOG = LoggerFactory.getLogger(WalLog.class);

    final ReentrantLock lock = new ReentrantLock();
    final Store inner;
    final WalOptions options;
    final WalDirectory dir;

    /** Asked for a new file before each write call, or null: one file for good. */
    private final LogRotation rotation;

    // Guarded by lock.
    WalFile file;
    String name;
    long size;

    /** The size after the last rewrite (or at start): the automatic rewrite's yardstick. */
    long baseSize;

    long unforcedRecords;

    /** The running rewrite's side buffer, or null. */
    RewriteJob rewrite;

    /**
     * Set holding the writer's closing lock and {@link #lock} (the combiner keeps its own flag for
     * its lanes); read holding either.
     */
    boolean closed;

    long lastForceNanos = System.nanoTime();

    /** Set once a write can no longer be trusted: later writes fail with it, reads go on. */
    volatile StorageFailureException broken;

    // Figures for other threads (INFO), written under lock.
    private volatile long statLogBytes;
    private volatile long statBaseBytes;
    private volatile long recordsWritten;
    private volatile long fsyncs;
    private volatile long recordsForced;
    private volatile long lastFsyncMillis;

    WalLog(Store inner, WalOptions options, WalDirectory dir, WalFile file, long size) {
        this(inner, options, dir, WalStore.LOG_NAME, file, size, null);
    }

    WalLog(
            Store inner,
            WalOptions options,
            WalDirectory dir,
            String name,
            WalFile file,
            long size,
            LogRotation rotation) {
        this.inner = inner;
        this.options = options;
        this.dir = dir;
        this.name = name;
        this.rotation = rotation;
        this.file = file;
        this.size = size;
        this.baseSize = size;
        this.statLogBytes = size;
        this.statBaseBytes = size;
    }

    /** Applies a record to the wrapped store; true if it changed a key that was there. */
    boolean apply(WalRecord record) {
        return apply(inner, record);
    }

    static boolean apply(Store store, WalRecord record) {
        return switch (record) {
            case WalRecord.Put p -> {
                store.put(p.key(), p.value());
                yield true;
            }
            case WalRecord.Delete d -> store.delete(d.key());
            case WalRecord.Clear c -> {
                store.clear();
                yield true;
            }
        };
    }

    /**
     * Before a write call, under {@link #lock}: switches to the file the rotation hands over, if
     * any, after forcing the old one (its records then need no later force).
     */
    void beforeAppend() throws IOException {
        if (rotation == null) {
            return;
        }
        LogRotation.Next next = rotation.next(size);
        if (next == null) {
            return;
        }
        WalFile old = file;
        old.force();
        recordsForced += unforcedRecords;
        unforcedRecords = 0;
        file = next.file();
        name = next.name();
        size = 0;
        old.close();
        rebased();
    }

    /** After a write call of {@code bytes} holding {@code records}; under {@link #lock}. */
    void written(long bytes, int records) {
        size += bytes;
        statLogBytes = size;
        recordsWritten += records;
    }

    /** After a force made during a commit under always; under {@link #lock}. */
    void forcedWith(int records) {
        fsyncs++;
        recordsForced += records;
        lastFsyncMillis = System.currentTimeMillis();
    }

    /** Copies written bytes to a running rewrite's side buffer (the buffer may be reused). */
    void copyToRewrite(ByteBuffer bytes) {
        if (rewrite != null) {
            rewrite.buffer(bytes);
        }
    }

    /** After a rewrite switched files or gave up: a new yardstick; under {@link #lock}. */
    void rebased() {
        baseSize = size;
        statLogBytes = size;
        statBaseBytes = baseSize;
    }

    /**
     * Forces the file without holding {@link #lock} across the fsync, so that writers go on
     * appending meanwhile: the records written before it count as forced, those appended during it
     * as still unforced (they may or may not be on disk). The writer thread's alone.
     */
    void force() throws IOException {
        long covered;
        WalFile forcing;
        lock.lock();
        try {
            covered = unforcedRecords;
            forcing = file; // a rotation may switch files meanwhile, forcing and closing this one
        } finally {
            lock.unlock();
        }
        IOException failure = null;
        try {
            forcing.force();
        } catch (IOException e) {
            failure = e;
        }
        lock.lock();
        try {
            if (forcing != file) {
                return; // rotated away: the rotation forced it and counted its records
            }
            if (failure != null) {
                throw failure;
            }
            fsyncs++;
            recordsForced += covered;
            unforcedRecords -= covered;
            lastForceNanos = System.nanoTime();
            lastFsyncMillis = System.currentTimeMillis();
        } finally {
            lock.unlock();
        }
    }

    StorageFailureException failed(String what, IOException e) {
        return new StorageFailureException(
                "the log's "
                        + what
                        + " failed ("
                        + e.getMessage()
                        + "); not acknowledged, and not applied",
                e);
    }

    /**
     * After a failed append, cuts the file back to its last good size and forces that, so the next
     * append does not land after half a record; if even that fails, refuses writes from now on.
     * Under {@link #lock}.
     */
    void repair(IOException cause) {
        try {
            file.truncate(size);
            file.force();
            LOG.warn(
                    "a log append failed ({}); cut back to {} bytes and going on",
                    cause.toString(),
                    size);
        } catch (IOException e) {
            breakStore("the log could not be cut back after a failed append (" + e + ")", e);
        }
    }

    /** Refuses writes until restart; under {@link #lock}. */
    void breakStore(String why, IOException e) {
        broken =
                new StorageFailureException(
                        why + "; writes are refused until restart, reads go on", e);
        LOG.error("{}: {}", describe(), broken.getMessage());
    }

    String describe() {
        return dir.describe(name);
    }

    WalStats stats(WalRewrite rewrites) {
        StorageFailureException failure = broken;
        return new WalStats(
                options.fsync(),
                statLogBytes,
                statBaseBytes,
                recordsWritten,
                fsyncs,
                recordsForced,
                lastFsyncMillis,
                rewrites.count(),
                rewrites.running(),
                rewrites.lastMillis(),
                rewrites.lastStatus(),
                failure == null ? null : failure.getMessage());
    }
}
