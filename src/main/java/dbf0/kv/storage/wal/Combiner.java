package dbf0.kv.storage.wal;

import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Combining: one write call for the records of many callers, with no thread switch. It serves every
 * write under {@code interval} and {@code never}, and under {@code always} the writes of an event
 * loop, which flushes once per turn ({@link dbf0.common.FlushingThread}).
 *
 * <p>With no fsync on a write's path to share, handing each write to a thread and back would be
 * most of its cost, and a write call per record most of the rest. So the caller's thread leaves its
 * record on a list of pending records (under a lock of its own, never held across a write); its
 * future stays incomplete, and nothing is written or applied yet, so no reader can see it. A caller
 * about to wait calls {@link #flush}: holding the log's lock, it takes every pending record,
 * anyone's, encodes them straight into one buffer (no array per record), writes that with one write
 * call, under {@code always} forces it, applies the records in order, and after letting go of the
 * lock completes their futures. Whoever flushes first writes for everybody (flat combining). The
 * lock keeps the store equal to a replay of the log: appends and applies happen in one order.
 *
 * <p>Under {@code always} the log's lock is held across the fsync, as an event loop that fsyncs
 * before it sleeps (Redis's {@code beforeSleep}) holds up its own work; other loops go on
 * accepting, and what they accept meanwhile shares the next flush's fsync.
 *
 * <p>Pending records are bounded: sessions flush before they wait, and any caller that finds
 * {@value #PENDING_LIMIT} pending flushes them itself. As a safety net the writer thread calls
 * {@link #flushLate}, so a caller that forgets to flush gets a slow write, not a hang.
 */
final class Combiner {

    /**
     * Records waiting for a flush at most: the submitter that reaches it flushes them itself.
     * Sessions flush long before; this bounds a caller that submits many writes before it waits, as
     * the queue's capacity does under always.
     */
    static final int PENDING_LIMIT = WalStore.QUEUE_CAPACITY;

    /** Bytes a flush gathers into one write call at most; a bigger record is written alone. */
    private static final int FLUSH_BYTES = 16 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(Combiner.class);

    private final WalLog log;
    private final WalRewrite rewrite;

    /** How long a record may wait before {@link #flushLate} writes it. */
    private final long lateFlushNanos;

    /**
     * Guards {@link #pending}; taken inside the log's lock when both are held. Accepting a record
     * needs only this one, so an event loop goes on accepting while another flush holds the log's
     * lock across its fsync, and its records join the next flush.
     */
    private final ReentrantLock pendingLock = new ReentrantLock();

    // Guarded by pendingLock.
    /** Accepted, not yet written, in the order they were accepted. */
    private List<Pending> pending = new ArrayList<>();

    /** When the oldest of {@link #pending} was accepted. */
    private long pendingSinceNanos;

    /** A flush's records are gathered here, for one write call. */
    private ByteBuffer batchBuffer = ByteBuffer.allocate(64 * 1024);

    /**
     * {@code pending.size()}, written under the pending lock, read without it by {@link #flush}: a
     * caller's own accepted records show here until a flush (its own or another's) has taken them.
     */
    private volatile int pendingCount;

    Combiner(WalLog log, WalRewrite rewrite, long lateFlushNanos) {
        this.log = log;
        this.rewrite = rewrite;
        this.lateFlushNanos = lateFlushNanos;
    }

    /** A record accepted, and what its flush found. */
    static final class Pending {
        final WalRecord record;
        final int size;
        final CompletableFuture<Boolean> done;
        // Set by the flush under the lock, read by the same thread after it lets go of the lock.
        boolean result;
        boolean applied;
        StorageFailureException failure;

        Pending(WalRecord record, int size, CompletableFuture<Boolean> done) {
            this.record = record;
            this.size = size;
            this.done = done;
        }
    }

    /** Leaves the record for the next {@link #flush}; the caller checked its size. */
    CompletableFuture<Boolean> accept(WalRecord record) {
        int size = (int) WalRecord.encodedSize(record);
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        boolean atLimit;
        pendingLock.lock();
        try {
            if (log.closed) {
                return CompletableFuture.failedFuture(
                        new StorageFailureException("the store is closed"));
            }
            StorageFailureException failure = log.broken;
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (pending.isEmpty()) {
                pendingSinceNanos = System.nanoTime();
            }
            pending.add(new Pending(record, size, done));
            pendingCount = pending.size();
            atLimit = pending.size() >= PENDING_LIMIT;
        } finally {
            pendingLock.unlock();
        }
        if (atLimit) {
            flush();
        }
        return done;
    }

    /** Writes every pending record (anyone's) with one write call, applies them, completes them. */
    void flush() {
        if (pendingCount == 0) {
            return; // none of this caller's records wait: a flush that took them completes them
        }
        // A FileChannel call by a thread whose interrupt flag is set closes the channel for every
        // thread: the caller is a session's thread, so set its flag aside until the write is done.
        // (An interrupt during the call still closes it; FileChannelDirectory then opens it again.)
        boolean interrupted = Thread.interrupted();
        try {
            List<Pending> written;
            log.lock.lock();
            try {
                written = writePending();
            } finally {
                log.lock.unlock();
            }
            complete(written); // not under the lock: a completion runs callbacks (an event loop's)
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The safety net: flushes the pending records if the oldest has waited too long. */
    void flushLate() {
        List<Pending> written;
        log.lock.lock();
        try {
            if (nanosUntilLate(System.nanoTime(), 1) > 0) {
                return;
            }
            written = writePending();
        } finally {
            log.lock.unlock();
        }
        complete(written);
    }

    /** Nanoseconds from {@code now} until the oldest pending record is late. */
    long nanosUntilLate(long now, long ifNonePending) {
        pendingLock.lock();
        try {
            return pending.isEmpty() ? ifNonePending : pendingSinceNanos + lateFlushNanos - now;
        } finally {
            pendingLock.unlock();
        }
    }

    /**
     * Refuses every record from now on; under the log's lock, so that the flush that follows takes
     * the last of them.
     */
    void close() {
        pendingLock.lock();
        try {
            log.closed = true;
        } finally {
            pendingLock.unlock();
        }
    }

    /**
     * Takes every pending record and writes, applies and judges it (under the log's lock); returns
     * them for {@link #complete} once the lock is let go.
     */
    List<Pending> writePending() {
        List<Pending> taken;
        pendingLock.lock();
        try {
            if (pending.isEmpty()) {
                return List.of();
            }
            taken = pending;
            pending = new ArrayList<>();
            pendingCount = 0;
        } finally {
            pendingLock.unlock();
        }
        try {
            for (int from = 0; from < taken.size(); ) {
                long bytes = taken.get(from).size;
                int to = from + 1;
                while (to < taken.size() && bytes + taken.get(to).size <= FLUSH_BYTES) {
                    bytes += taken.get(to).size;
                    to++;
                }
                writeGroup(taken.subList(from, to), (int) bytes);
                from = to;
            }
            rewrite.maybeStart();
        } catch (RuntimeException | Error e) {
            // A bug (or no memory), not a disk: refuse writes from now on, and fail what is left
            // rather than leave its waiters hanging.
            LOG.error("a flush of the log failed; writes are refused from now on", e);
            log.broken =
                    new StorageFailureException(
                            "a flush of the log failed ("
                                    + e
                                    + "); the writes it had not applied may or may not be kept",
                            e);
            for (Pending p : taken) {
                if (!p.applied && p.failure == null) {
                    p.failure = log.broken;
                }
            }
        }
        return taken;
    }

    /**
     * One write call for {@code group} ({@code size} bytes), under {@code always} one force, then
     * its applies; under the lock.
     */
    private void writeGroup(List<Pending> group, int size) {
        if (log.broken != null) {
            for (Pending p : group) {
                p.failure = log.broken;
            }
            return;
        }
        ByteBuffer bytes = encode(group, size);
        boolean always = log.options.fsync() == FsyncPolicy.ALWAYS;
        try {
            log.file.write(bytes.duplicate(), log.size);
            if (always) {
                log.file.force();
            }
        } catch (IOException e) {
            StorageFailureException failure = log.failed(always ? "write or force" : "write", e);
            for (Pending p : group) {
                p.failure = failure;
            }
            log.repair(e);
            return;
        }
        // In the kernel now (under always on the disk), so a crash of the process cannot take it
        // back: safe to apply and acknowledge.
        log.written(size, group.size());
        if (always) {
            log.forcedWith(group.size());
        } else {
            log.unforcedRecords += group.size();
        }
        log.copyToRewrite(bytes); // copied: the buffer is reused
        for (Pending p : group) {
            p.result = log.apply(p.record);
            p.applied = true;
        }
    }

    /**
     * The group's records, encoded back to back into the reused buffer; a group bigger than the
     * buffer may grow to ({@link #FLUSH_BYTES}) gets a buffer of its own, not kept.
     */
    private ByteBuffer encode(List<Pending> group, int size) {
        ByteBuffer into = batchBuffer;
        if (into.capacity() < size) {
            if (size > FLUSH_BYTES) {
                into = ByteBuffer.allocate(size); // one record too big to share a write call
            } else {
                int grown = Math.min(batchBuffer.capacity() * 2, FLUSH_BYTES);
                batchBuffer = ByteBuffer.allocate(Math.max(size, grown));
                into = batchBuffer;
            }
        }
        into.clear();
        for (Pending p : group) {
            WalRecord.encode(p.record, into);
        }
        return into.flip();
    }

    /** Completes the futures of a flush's records, in the order they were accepted. */
    static void complete(List<Pending> written) {
        for (Pending p : written) {
            if (p.failure != null) {
                p.done.completeExceptionally(p.failure);
            } else {
                p.done.complete(p.result);
            }
        }
    }
}
