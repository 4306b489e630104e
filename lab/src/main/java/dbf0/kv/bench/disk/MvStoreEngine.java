package dbf0.kv.bench.disk;

import dbf0.common.ByteSizes;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;

/**
 * Type {@code mvstore}: H2's MVStore, a copy-on-write B-tree in pure Java, with one map of byte
 * array keys (compared unsigned) and values. It has no write-ahead log: a write changes the tree in
 * the heap, and a <em>commit</em> appends every page changed since the last one, up to the root, to
 * the file as one chunk. A crash loses what was not committed; a commit not yet forced can be lost
 * by a power loss. MVStore keeps overwritten chunks for 45 s before it reuses their space, trusting
 * the kernel to have written the newer ones by then.
 *
 * <p>So the fsync policies map onto when commits happen and when the file is forced:
 *
 * <ul>
 *   <li>{@code always}: every write commits and forces the file before it returns. Concurrent
 *       writers may share a commit (a commit stores every change made so far), not a force.
 *   <li>{@code interval}: MVStore's background writer commits every --fsync-interval, and a timer
 *       commits and forces every --fsync-interval.
 *   <li>{@code never}: the background writer commits every --fsync-interval; nothing forces. Unlike
 *       a log-based engine, a crash of the process alone loses the writes since the last commit.
 * </ul>
 *
 * The background writer also compacts: it rewrites chunks that are mostly dead. Its figures are
 * MVStore's own: bytes written to the file, and file reads (pages the cache did not hold).
 */
final class MvStoreEngine implements DiskEngine {

    /** The store's one file in the data directory. */
    static final String FILE = "kv.mv.db";

    private final MVStore store;
    private final MVMap<byte[], byte[]> map;
    private final FsyncPolicy fsync;
    private final LongAdder forces = new LongAdder();
    private final AtomicReference<String> backgroundFailure = new AtomicReference<>();
    private final ForceTimer timer;
    private final String description;

    private MvStoreEngine(LsmOptions o) {
        fsync = o.fsync();
        long cacheMib = Math.max(o.blockCacheBytes() >> 20, 1);
        store =
                new MVStore.Builder()
                        .fileName(o.dataDir().resolve(FILE).toString())
                        // MVStore's page cache, in MiB: the same bound as the other engines'
                        // caches.
                        .cacheSize((int) Math.min(cacheMib, Integer.MAX_VALUE))
                        // A failure in MVStore's own threads would otherwise only reach the log.
                        .backgroundExceptionHandler(
                                (t, e) -> backgroundFailure.compareAndSet(null, e.toString()))
                        .open();
        long delay = Math.max(o.fsyncInterval().toMillis(), 1);
        store.setAutoCommitDelay((int) Math.min(delay, Integer.MAX_VALUE));
        map =
                store.openMap(
                        "kv",
                        new MVMap.Builder<byte[], byte[]>()
                                .keyType(ByteArrayDataType.INSTANCE)
                                .valueType(ByteArrayDataType.INSTANCE));
        timer =
                fsync == FsyncPolicy.INTERVAL
                        ? new ForceTimer("mvstore-commit-force", o.fsyncInterval(), this::commit)
                        : null;
        description =
                "mvstore: copy-on-write B-tree, byte[] keys and values, page cache "
                        + ByteSizes.format(cacheMib << 20)
                        + ", pages split at 16 KiB (MVStore's default), background commit and"
                        + " compaction every "
                        + delay
                        + " ms, fsync "
                        + fsync.cliName()
                        + ": "
                        + switch (fsync) {
                            case ALWAYS -> "every write commits and forces the file";
                            case INTERVAL -> "a timer commits and forces every " + delay + " ms";
                            case NEVER -> "nothing forces the file";
                        };
    }

    /** Opens (or creates) the store in the options' data directory. */
    static MvStoreEngine open(LsmOptions options) throws IOException {
        try {
            return new MvStoreEngine(options);
        } catch (MVStoreException e) {
            throw new IOException("mvstore: " + e.getMessage(), e);
        }
    }

    /**
     * Commits what is in the heap and forces the file. The commit may find its work done by another
     * thread's commit, still being written by MVStore's writer threads; the force waits for those
     * writes first ({@link FileStore#executeFileStoreOperation}), so it covers them.
     */
    private void commit() {
        store.commit();
        FileStore<?> file = store.getFileStore();
        file.executeFileStoreOperation(file::sync);
        forces.increment();
    }

    private void checkFailures() throws IOException {
        String failed = backgroundFailure.get();
        if (failed != null) {
            throw new IOException("mvstore: its background writer failed: " + failed);
        }
        if (timer != null) {
            timer.check();
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        checkFailures();
        try {
            map.put(key, value);
            if (fsync == FsyncPolicy.ALWAYS) {
                commit();
            }
        } catch (MVStoreException e) {
            throw new IOException("mvstore put: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean get(byte[] key) throws IOException {
        try {
            return map.get(key) != null;
        } catch (MVStoreException e) {
            throw new IOException("mvstore get: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean delete(byte[] key) throws IOException {
        checkFailures();
        try {
            boolean found = map.remove(key) != null;
            if (found && fsync == FsyncPolicy.ALWAYS) {
                commit();
            }
            return found;
        } catch (MVStoreException e) {
            throw new IOException("mvstore delete: " + e.getMessage(), e);
        }
    }

    @Override
    public EngineCounters counters() {
        Map<String, String> info = new HashMap<>();
        store.getFileStore().populateInfo(info::put);
        long written = Long.parseLong(info.getOrDefault("info.FILE_WRITE_BYTES", "-1"));
        return new EngineCounters(
                written,
                store.getFileStore().getReadCount(),
                0,
                forces.sum()); // the timer's forces and the writers' alike
    }

    @Override
    public String describe() {
        return description;
    }

    /** Stops the timer, then closes the store, which commits what is left. */
    @Override
    public void close() throws IOException {
        if (timer != null) {
            timer.close();
        }
        try {
            store.close();
        } catch (MVStoreException e) {
            throw new IOException("mvstore close: " + e.getMessage(), e);
        }
    }
}
