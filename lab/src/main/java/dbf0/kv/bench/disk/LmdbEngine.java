package dbf0.kv.bench.disk;

import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.lmdbjava.ByteArrayProxy;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

/**
 * Type {@code lmdb}: LMDB through lmdbjava, a copy-on-write B+tree in one memory-mapped file. A
 * read walks the map without a lock or a copy inside LMDB (lmdbjava then copies the value into a
 * byte array); one write transaction runs at a time, and its commit writes the changed pages and
 * then a new meta page that points at the new root. There is no log and no cache setting: the
 * kernel's page cache is LMDB's cache.
 *
 * <p>The fsync policies map onto LMDB's flags (http://www.lmdb.tech/doc/group__mdb.html):
 *
 * <ul>
 *   <li>{@code always}: the default. A commit fdatasyncs the data pages, then writes the meta page
 *       through a synchronous handle: it waits for the disk twice, and writers take turns.
 *   <li>{@code interval}: MDB_NOSYNC, and a timer calling {@code mdb_env_sync} every
 *       --fsync-interval.
 *   <li>{@code never}: MDB_NOSYNC alone.
 * </ul>
 *
 * LMDB's documentation says what MDB_NOSYNC costs: a system crash may lose the last transactions,
 * and may corrupt the database unless the file system keeps writes in order, since the meta page
 * can then reach the disk before the pages it points at. The other engines here stay consistent
 * under {@code interval} and {@code never}; LMDB has no mode in between that syncs less than once
 * per commit and stays safe.
 *
 * <p>lmdbjava's byte-array proxy is used so that no JDK module needs opening; jnr-ffi, under it,
 * reaches sun.misc.Unsafe, which JDK 24 and later warn about once. LMDB counts neither bytes
 * written nor pages read (the map's reads are page faults), so those figures are null; its fsyncs
 * are counted from the outside, one per commit that changed something under {@code always} and the
 * timer's.
 */
final class LmdbEngine implements DiskEngine {

    /**
     * The largest the data file may grow: address space reserved up front, not disk. A put beyond
     * it fails with MDB_MAP_FULL.
     */
    static final long MAP_BYTES = 256L << 30;

    /** Reader slots: one per read transaction, and disk-bench runs up to 1,024 threads. */
    static final int MAX_READERS = 1024 + 16;

    private final Env<byte[]> env;
    private final Dbi<byte[]> db;
    private final FsyncPolicy fsync;
    private final LongAdder syncedCommits = new LongAdder();
    private final ForceTimer timer;
    private final String description;

    private LmdbEngine(LsmOptions o) {
        fsync = o.fsync();
        List<EnvFlags> flags = new ArrayList<>();
        // A reader slot per transaction, not per thread: any thread may read.
        flags.add(EnvFlags.MDB_NOTLS);
        if (fsync != FsyncPolicy.ALWAYS) {
            flags.add(EnvFlags.MDB_NOSYNC);
        }
        env =
                Env.create(ByteArrayProxy.PROXY_BA)
                        .setMapSize(MAP_BYTES)
                        .setMaxDbs(1)
                        .setMaxReaders(MAX_READERS)
                        .open(o.dataDir().toFile(), flags.toArray(EnvFlags[]::new));
        db = env.openDbi("kv", DbiFlags.MDB_CREATE);
        timer =
                fsync == FsyncPolicy.INTERVAL
                        ? new ForceTimer("lmdb-sync", o.fsyncInterval(), () -> env.sync(true))
                        : null;
        description =
                "lmdb: copy-on-write B+tree in a memory map of up to "
                        + (MAP_BYTES >> 30)
                        + " GiB, the OS's pages, the kernel's page cache as its cache, one writer"
                        + " at a time, fsync "
                        + fsync.cliName()
                        + ": "
                        + switch (fsync) {
                            case ALWAYS -> "every commit syncs the data file, then the meta page";
                            case INTERVAL ->
                                    "MDB_NOSYNC and mdb_env_sync every "
                                            + o.fsyncInterval().toMillis()
                                            + " ms";
                            case NEVER -> "MDB_NOSYNC";
                        };
    }

    /** Opens (or creates) the environment in the options' data directory. */
    static LmdbEngine open(LsmOptions options) throws IOException {
        try {
            return new LmdbEngine(options);
        } catch (LmdbException e) {
            throw new IOException("lmdb: " + options.dataDir() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        if (timer != null) {
            timer.check();
        }
        try {
            db.put(key, value); // its own write transaction, committed
            if (fsync == FsyncPolicy.ALWAYS) {
                syncedCommits.increment();
            }
        } catch (LmdbException e) {
            throw new IOException("lmdb put: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean get(byte[] key) throws IOException {
        try (Txn<byte[]> txn = env.txnRead()) {
            return db.get(txn, key) != null;
        } catch (LmdbException e) {
            throw new IOException("lmdb get: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean delete(byte[] key) throws IOException {
        if (timer != null) {
            timer.check();
        }
        try {
            boolean found = db.delete(key);
            // A commit that changed nothing writes nothing, and so syncs nothing.
            if (found && fsync == FsyncPolicy.ALWAYS) {
                syncedCommits.increment();
            }
            return found;
        } catch (LmdbException e) {
            throw new IOException("lmdb delete: " + e.getMessage(), e);
        }
    }

    @Override
    public EngineCounters counters() {
        long forces = syncedCommits.sum() + (timer == null ? 0 : timer.forces());
        return new EngineCounters(-1, -1, 0, forces);
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * Stops the timer, forces what MDB_NOSYNC left unforced (a clean close loses nothing under any
     * policy, as with the other engines), then closes the environment.
     */
    @Override
    public void close() throws IOException {
        if (timer != null) {
            timer.close();
        }
        try {
            env.sync(true);
        } catch (LmdbException e) {
            throw new IOException("lmdb close: " + e.getMessage(), e);
        } finally {
            db.close();
            env.close();
        }
    }
}
