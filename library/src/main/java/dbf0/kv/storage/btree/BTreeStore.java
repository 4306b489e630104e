package dbf0.kv.storage.btree;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.wal.FileChannelDirectory;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalLimits;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalStats;
import dbf0.kv.storage.wal.WalStore;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read last: the B+tree store, data on disk updated in place, behind the same {@link Store} as the
 * maps and the LSM tree. A write goes to the write-ahead log (dbf0's log, {@link WalStore}, with
 * its fsync policies and group commit) and then into the tree's pages in the {@link BufferPool}; a
 * {@link Checkpoint} writes the changed pages to the tree's file now and then, through the {@link
 * DoubleWrite} file, and starts a new log; a read goes down the tree.
 *
 * <h2>Crash safety: the choice</h2>
 *
 * A redo log of logical records (the log every store of dbf0 shares) with atomic checkpoints: the
 * tree's file changes only at a checkpoint, and a checkpoint reaches the file whole or not at all,
 * torn pages included ({@link Checkpoint} has the order of the forces). Recovery replays the logs
 * from the checkpoint's on. The alternatives: ARIES-style physiological logging (each page change
 * logged with its page's LSN, pages written back whenever, fuzzy checkpoints) lets the pool evict a
 * dirty page at any time, at the cost of a second, page-level log format; copy-on-write with two
 * meta pages (LMDB) needs no log at all, at the cost of rewriting a page's whole path per commit.
 * This store keeps dbf0's one log format, and pays with dirty pages that stay in memory until a
 * checkpoint (a quarter of the pool starts one; three quarters hold writers back).
 *
 * <h2>Memory</h2>
 *
 * The pool ({@link BTreeOptions#bufferPoolBytes}) is what grows with the data, up to its bound; a
 * checkpoint copies the dirty pages it writes (at most three quarters of the pool, plus the pages
 * the writes already queued in the log dirty past that), and a change holds a few pages of cells
 * while it splits. Writes already queued when the pool filled may take frames past the bound
 * ({@link BufferPool}); the next checkpoint gives them back. Reads that need the disk go to {@value
 * #READ_THREADS} threads with a queue of {@value #READ_QUEUE}, as the LSM store's do.
 */
public final class BTreeStore implements Store, Closeable {

    static final int READ_THREADS = 4;
    static final int READ_QUEUE = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(BTreeStore.class);

    private final BTreeOptions options;
    private final BTree tree;
    private final Applier applier;
    private final WalStore wal;
    private final Checkpointer checkpointer;
    private final BTreeRecovery recovery;
    private final ThreadPoolExecutor readPool;
    private final BTreeRecovery.Opened opened;
    private final WalDirectory dir;
    private final VacuumRunner vacuums = new VacuumRunner(this::vacuum);
    private volatile boolean closed;

    private BTreeStore(
            BTreeOptions options,
            BTreeRecovery.Opened opened,
            WalDirectory dir,
            Applier applier,
            WalStore wal,
            Checkpointer checkpointer) {
        this.options = options;
        this.opened = opened;
        this.dir = dir;
        this.tree = opened.tree();
        this.recovery = opened.recovery();
        this.applier = applier;
        this.wal = wal;
        this.checkpointer = checkpointer;
        AtomicInteger threads = new AtomicInteger();
        this.readPool =
                new ThreadPoolExecutor(
                        READ_THREADS,
                        READ_THREADS,
                        0,
                        TimeUnit.SECONDS,
                        new ArrayBlockingQueue<>(READ_QUEUE),
                        r -> {
                            Thread t = new Thread(r, "btree-read-" + threads.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        },
                        new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Opens (or creates) the store in {@code options.dataDir()}; the directory is created if
     * missing, but not its parent ({@link FileChannelDirectory}).
     */
    public static BTreeStore open(BTreeOptions options) throws IOException {
        FileChannelDirectory dir = new FileChannelDirectory(options.dataDir());
        try {
            return open(options, dir);
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /**
     * Opens the store on {@code dir} (a test's simulated disk); the store owns it and closes it.
     *
     * @throws CorruptPageException if a page read while opening is damaged
     * @throws dbf0.kv.storage.wal.CorruptWalException if a log has a bad record in its middle
     */
    public static BTreeStore open(BTreeOptions options, WalDirectory dir) throws IOException {
        Objects.requireNonNull(options, "options");
        WalOptions walOptions =
                WalOptions.defaults(options.dataDir())
                        .withFsync(options.fsync())
                        .withFsyncInterval(options.fsyncInterval())
                        .withRewrite(0, 0); // a log per checkpoint: never rewritten
        BTreeRecovery.Opened opened = BTreeRecovery.run(options, dir, walOptions);
        BTree tree = opened.tree();
        Checkpointer checkpointer =
                new Checkpointer(
                        tree,
                        dir,
                        opened.doubleWrite(),
                        options.checkpointLogBytes(),
                        opened.logNumber() + 1);
        Applier applier = new Applier(tree, () -> {});
        WalStore wal;
        try {
            wal =
                    WalStore.open(
                            applier,
                            walOptions,
                            dir,
                            WalLimits.DEFAULTS,
                            BTreeRecovery.logName(opened.logNumber()),
                            checkpointer);
        } catch (IOException | RuntimeException e) {
            checkpointer.close();
            closeFiles(opened);
            throw e;
        }
        // debug: the opener prints it where it prints the rest (dbf0 server, before its banner)
        LOG.debug("{}", opened.recovery().summary());
        return new BTreeStore(options, opened, dir, applier, wal, checkpointer);
    }

    /** What opening found: pages repaired, logs replayed, torn tails cut. */
    public BTreeRecovery recovery() {
        return recovery;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return tree.get(key.getArray());
    }

    /** Answers at once if the path to the key's leaf is in the pool, else on a read thread. */
    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        try {
            ByteArrayWrapper v = tree.getIfCached(key.getArray());
            if (v != BTree.NOT_IN_MEMORY) {
                return CompletableFuture.completedFuture(v);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<ByteArrayWrapper> done = new CompletableFuture<>();
        try {
            readPool.execute(
                    () -> {
                        try {
                            done.complete(get(key));
                        } catch (RuntimeException e) {
                            done.completeExceptionally(e);
                        }
                    });
        } catch (RejectedExecutionException full) {
            // Never the caller's thread: an event loop must not wait for the disk itself.
            done.completeExceptionally(
                    new StorageFailureException(
                            readPool.isShutdown()
                                    ? "the store is closed"
                                    : "busy: "
                                            + READ_QUEUE
                                            + " reads already wait for the disk; try again"));
        }
        return done;
    }

    @Override
    public boolean mayWaitForDisk() {
        return true;
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return applier.scan(from, toExclusive, limit);
    }

    /** Exact, from a counter: no read. */
    @Override
    public int size() {
        return applier.size();
    }

    @Override
    public long keyCount() {
        return tree.keys.get();
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        applier.forEach(action);
    }

    @Override
    public long largestValueBytes() {
        return tree.largestValue.get();
    }

    // ---------------------------------------------------------------- writes

    /** A key the tree cannot hold is refused before it reaches the log. */
    private void admit(ByteArrayWrapper key) {
        if (key.length() > tree.maxKey()) {
            throw new StorageFailureException(
                    "a key of "
                            + key.length()
                            + " bytes is over the B+tree's "
                            + tree.maxKey()
                            + " with "
                            + tree.pool.pageSize()
                            + "-byte pages; use larger pages (--page-size)");
        }
        StorageFailureException b = applier.broken;
        if (b != null) {
            throw b;
        }
        checkpointer.throttle();
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        admit(key);
        wal.put(key, value);
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        admit(key);
        return wal.delete(key);
    }

    @Override
    public void clear() {
        checkpointer.throttle();
        wal.clear();
    }

    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        try {
            admit(key);
        } catch (StorageFailureException e) {
            return CompletableFuture.failedFuture(e);
        }
        return wal.putAsync(key, value);
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        try {
            admit(key);
        } catch (StorageFailureException e) {
            return CompletableFuture.failedFuture(e);
        }
        return wal.deleteAsync(key);
    }

    @Override
    public CompletableFuture<Boolean> clearAsync() {
        return wal.clearAsync();
    }

    @Override
    public void flush() {
        wal.flush();
    }

    @Override
    public void awaitSubmitted() {
        wal.awaitSubmitted();
    }

    // ---------------------------------------------------------------- the store as a whole

    /** The tree's shape and the pool's counters now. */
    public BTreeStats stats() {
        long[] c = tree.pool.counters();
        return new BTreeStats(
                tree.pool.pageSize(),
                tree.meta.pageCount,
                tree.meta.freeCount,
                tree.rootLevel + 1,
                tree.pool.capacity(),
                tree.pool.dirtyBytes() / tree.pool.pageSize(),
                tree.pool.framesOverBound(),
                c[0],
                c[1],
                c[2],
                checkpointer.checkpoints(),
                checkpointer.bytesWritten() + wal.stats().logBytes());
    }

    /** The write-ahead log's figures. */
    public WalStats walStats() {
        return wal.stats();
    }

    /**
     * The log's figures with the vacuums' in place of the log's rewrites (this store's log is never
     * rewritten: a checkpoint starts a new one): what INFO persistence shows.
     */
    public WalStats persistenceStats() {
        WalStats w = wal.stats();
        VacuumRunner.Status v = vacuums.status();
        return new WalStats(
                w.policy(),
                w.logBytes(),
                w.baseBytes(),
                w.recordsWritten(),
                w.fsyncs(),
                w.recordsForced(),
                w.lastFsyncEpochMillis(),
                v.vacuums(),
                v.running(),
                v.lastEpochMillis(),
                v.last(),
                w.failure());
    }

    /** Bytes of the pages the tree uses now; the file has them all from the next checkpoint. */
    public long fileBytes() {
        return (long) tree.meta.pageCount * tree.pool.pageSize();
    }

    /**
     * Rebuilds the tree dense into a new file and puts it in place of the old, which gives back the
     * space of deleted keys, emptied leaves and free pages ({@link Vacuum}). Reads and writes wait
     * while it runs; a power cut leaves the old file or the new, each with every acknowledged
     * write.
     *
     * @throws IOException if it failed before the switch: the store goes on with the old file
     * @throws StorageFailureException if the store is closed, or broken (then writes are refused)
     */
    public VacuumResult vacuum() throws IOException {
        return checkpointer.exclusive(
                currentLog -> Vacuum.run(tree, dir, currentLog, checkpointer::fail));
    }

    /** {@link #vacuum} on a thread of its own, unless one runs: then that one's outcome. */
    public CompletableFuture<VacuumResult> vacuumAsync() {
        return vacuums.start();
    }

    /** The options the store was opened with. */
    public BTreeOptions options() {
        return options;
    }

    /**
     * Waits for a running checkpoint, writes and forces the log's pending records, closes every
     * file. The pages changed since the last checkpoint are not written: the log replays them at
     * the next open.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        checkpointer.quiesce();
        wal.close(); // closes the directory too
        checkpointer.close();
        readPool.shutdown();
        try {
            closeFiles(opened);
        } catch (IOException e) {
            LOG.warn("closing the B+tree's files: {}", e.toString());
        }
    }

    private static void closeFiles(BTreeRecovery.Opened opened) throws IOException {
        opened.tree().pool.file().close();
        opened.doubleWrite().close();
    }

    @Override
    public String toString() {
        return "BTreeStore(" + options.dataDir() + ", " + tree.pool.pageSize() + "-byte pages)";
    }
}
