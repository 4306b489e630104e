package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.CheckpointedStore;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.LogPosition;
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
import java.nio.file.Path;
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
 * The LSM-tree store: data on disk, more of it than memory holds, behind the same {@link Store} as
 * the maps. A write goes to the write-ahead log (dbf0's log, {@link WalStore}, with its fsync
 * policies and group commit; one log file per memtable) and then into the memtable; a full memtable
 * becomes a level-0 table; compaction merges tables downwards; a read looks from the newest data to
 * the oldest ({@link ReadPath}).
 *
 * <p>Memory: at most two memtables ({@link LsmOptions#memtableBytes} each, approximate, plus the
 * one write batch that found the memtable full: a log flush gathers at most 16 MiB) and the block
 * cache ({@link LsmOptions#blockCacheBytes}) grow with the workload; each open table's index and
 * bloom filter grow with the data (about 15 MiB per GiB with 1 KiB values, see {@link Table}).
 * {@code getAsync} hands reads that need the disk to {@link LsmTuning#readThreads} threads with a
 * queue of {@value #READ_QUEUE} reads per store; when it is full, the read fails at once with a
 * "busy" {@link StorageFailureException} (the caller never reads the disk itself: it may be an
 * event loop serving other connections).
 *
 * <p>{@link #size} merges every table and memtable: its cost is a full scan, reading every block.
 * {@link #keyCount}, what DBSIZE answers, is an estimate in O(1) instead ({@link KeyEstimate}).
 */
public final class LsmStore implements CheckpointedStore, Closeable {

    /** Reads waiting for a read thread at most. */
    static final int READ_QUEUE = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(LsmStore.class);

    private final LsmCore core;
    private final ReadPath reads;
    private final WritePath writes;
    private final Background background;
    private final WalStore wal;
    private final LsmRecovery recovery;
    private final ThreadPoolExecutor readPool;

    /** The writes without a log of its own; null when {@link #wal} takes them. */
    private final LoglessWrites logless;

    private LsmStore(LsmRecovery.Opened opened, WalStore wal) {
        this.core = opened.core();
        this.reads = opened.reads();
        this.writes = opened.writes();
        this.background = opened.background();
        this.recovery = opened.recovery();
        this.wal = wal;
        this.logless = wal == null ? new LoglessWrites(core, writes, background) : null;
        AtomicInteger threads = new AtomicInteger();
        int n = core.tuning.readThreads();
        this.readPool =
                new ThreadPoolExecutor(
                        n,
                        n,
                        0,
                        TimeUnit.SECONDS,
                        new ArrayBlockingQueue<>(READ_QUEUE),
                        r -> {
                            Thread t = new Thread(r, "lsm-read-" + threads.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        },
                        new ThreadPoolExecutor.AbortPolicy());
        background.start();
    }

    /**
     * Opens (or creates) the store in {@code options.dataDir()}; the directory is created if
     * missing, but not its parent ({@link FileChannelDirectory}).
     */
    public static LsmStore open(LsmOptions options) throws IOException {
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
     * @throws dbf0.kv.storage.wal.CorruptWalException if a log has a bad record in its middle
     * @throws CorruptTableException if a table or the manifest is damaged
     */
    public static LsmStore open(LsmOptions options, WalDirectory dir) throws IOException {
        Objects.requireNonNull(options, "options");
        WalOptions walOptions =
                WalOptions.defaults(options.dataDir())
                        .withFsync(options.fsync())
                        .withFsyncInterval(options.fsyncInterval())
                        .withRewrite(0, 0); // a log per memtable: never rewritten
        if (!options.ownLog()) {
            refuseLogs(dir);
        }
        LsmRecovery.Opened opened = LsmRecovery.run(options, dir, walOptions);
        WalStore wal = null;
        try {
            if (options.ownLog()) {
                wal =
                        WalStore.open(
                                opened.writes(),
                                walOptions,
                                dir,
                                WalLimits.DEFAULTS,
                                TableFormat.logName(opened.logNumber()),
                                opened.writes());
            }
        } catch (IOException | RuntimeException e) {
            opened.core().closeFiles();
            throw e;
        }
        LsmCore core = opened.core();
        for (var counter : List.of(core.userBytes, core.walBytes, core.tableBytes, core.flushes)) {
            counter.reset(); // statistics count from the open on, not the replay
        }
        // debug: the opener prints it where it prints the rest (dbf0 server, before its banner)
        LOG.debug("{}", opened.recovery().summary());
        return new LsmStore(opened, wal);
    }

    /** What opening found: logs replayed, torn tails cut. */
    public LsmRecovery recovery() {
        return recovery;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        core.gets.increment();
        return valueOf(reads.lookup(key, false));
    }

    private static ByteArrayWrapper valueOf(Cell cell) {
        return cell == null || cell.isTombstone() ? null : cell.value();
    }

    /** Answers at once from memtables, bloom filters and cached blocks, else on a read thread. */
    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        try {
            Cell cell = reads.lookup(key, true);
            if (cell != ReadPath.NOT_IN_MEMORY) {
                core.gets.increment();
                return CompletableFuture.completedFuture(valueOf(cell));
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
        return reads.scan(from, toExclusive, limit);
    }

    /** A full merge of every source: a read of every block. */
    @Override
    public int size() {
        long[] count = new long[1];
        reads.forRange(null, null, Long.MAX_VALUE, (k, v) -> count[0]++);
        return (int) Math.min(Integer.MAX_VALUE, count[0]);
    }

    /**
     * An estimate in O(1), without a read ({@link KeyEstimate}): each memtable's and table's count
     * of the keys it adds less those it removes, summed.
     */
    @Override
    public long keyCount() {
        return KeyEstimate.of(core.state, core.clearSeq);
    }

    @Override
    public boolean keyCountIsEstimate() {
        return true;
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        reads.forRange(null, null, Long.MAX_VALUE, action);
    }

    @Override
    public long largestValueBytes() {
        return writes.largestValue();
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        writes.throttle();
        if (logless != null) {
            logless.put(key, value);
        } else {
            wal.put(key, value);
        }
    }

    /** Looks the key up before the log's lock ({@link WritePath#probe}), then logs the delete. */
    @Override
    public boolean delete(ByteArrayWrapper key) {
        writes.throttle();
        if (logless != null) {
            return logless.delete(key);
        }
        writes.probe(key);
        return wal.delete(key);
    }

    /** Crash-safe: a logged clear record, then everything older is hidden and dropped. */
    @Override
    public void clear() {
        if (logless != null) {
            logless.clear();
        } else {
            wal.clear();
        }
    }

    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        if (logless != null) {
            return now(() -> put(key, value));
        }
        writes.throttle();
        return wal.putAsync(key, value);
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        if (logless != null) {
            try {
                return CompletableFuture.completedFuture(delete(key));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        writes.throttle();
        writes.probe(key);
        return wal.deleteAsync(key);
    }

    @Override
    public CompletableFuture<Boolean> clearAsync() {
        return logless != null ? now(this::clear) : wal.clearAsync();
    }

    private static CompletableFuture<Boolean> now(Runnable write) {
        try {
            write.run();
            return CompletableFuture.completedFuture(true);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** As {@link WalStore#flush}: the log's writes accepted so far go to disk together. */
    @Override
    public void flush() {
        if (wal != null) {
            wal.flush();
        }
    }

    @Override
    public void awaitSubmitted() {
        if (wal != null) {
            wal.awaitSubmitted(); // the memtable gets a write when the log applies it
        }
    }

    // ------------------------------------------ without a log of its own ({@link LoglessWrites})

    /**
     * {@inheritDoc} A memtable becomes a table only at a mark, so the tables hold whole entries.
     *
     * @throws IllegalStateException if the store has a log of its own
     */
    @Override
    public void markApplied(LogPosition at) throws IOException {
        logless().markApplied(at);
    }

    /**
     * {@inheritDoc} What the manifest records with the tables ({@link LogPosition#NONE} at first).
     */
    @Override
    public LogPosition applied() {
        return core.manifest.state().applied;
    }

    /**
     * {@inheritDoc} The memtable is flushed to a table, the position recorded in the manifest, and
     * the tables linked into {@code dir} with a manifest of their own ({@link Checkpoint}): {@code
     * dir} is a store's data directory in its own right, {@code CURRENT} its last file.
     *
     * @throws IllegalStateException if the store has a log of its own
     */
    @Override
    public List<Path> checkpoint(Path dir, LogPosition at) throws IOException {
        return logless().checkpoint(dir, at);
    }

    /** {@inheritDoc} Read from its manifest, every table it names checked to be there. */
    @Override
    public LogPosition positionOf(Path dir) throws IOException {
        return Checkpoint.read(dir).applied;
    }

    /**
     * {@inheritDoc} The checkpoint's tables are linked in under new numbers and a new manifest
     * names them alone; a read meanwhile finds the store empty for a moment rather than a mix of
     * the two ({@link Checkpoint#restore}).
     *
     * @throws CorruptTableException naming the file, if the checkpoint is not whole
     * @throws IllegalStateException if the store has a log of its own
     */
    @Override
    public LogPosition restore(Path dir) throws IOException {
        return logless().restore(dir);
    }

    private LoglessWrites logless() {
        if (logless == null) {
            throw new IllegalStateException(
                    "the store keeps a log of its own: positions are for a store without one");
        }
        return logless;
    }

    // ---------------------------------------------------------------- the store as a whole

    /**
     * A store without a log of its own must not find one: its writes are in no log its owner
     * replays, and applying them would make this copy differ from the others.
     */
    private static void refuseLogs(WalDirectory dir) throws IOException {
        for (String name : dir.list()) {
            if (TableFormat.number(name, ".log") >= 0) {
                throw new IOException(
                        dir.describe(name)
                                + ": the lsm store there kept a log of its own; a replicated"
                                + " shard's store keeps none (the Raft log is its log): give it"
                                + " a data dir of its own");
            }
        }
    }

    /** Counters since open, and the shape of the tree now. */
    public LsmStats stats() {
        LsmState s = core.state;
        Version v = s.version();
        long tables = 0;
        for (Table t : v.all()) {
            tables += t.meta().bytes();
        }
        long live = 0;
        for (int level = 0; level < Version.LEVELS; level++) {
            live = Math.max(live, v.levelBytes(level));
        }
        long logs =
                wal == null
                        ? 0
                        : wal.stats().logBytes()
                                + (s.immutable() == null ? 0 : core.immutableLogBytes);
        return new LsmStats(
                core.userBytes.sum(),
                core.walBytes.sum(),
                core.tableBytes.sum(),
                core.gets.sum(),
                core.cache.reads(),
                core.cache.hits(),
                core.stallNanos.sum(),
                tables + logs + core.manifest.bytes(),
                live,
                core.flushes.sum(),
                core.compactions.sum(),
                v.counts());
    }

    /** The memtables and tables now, for tests that look inside. */
    LsmState state() {
        return core.state;
    }

    /**
     * The write-ahead log's figures: its forces and the records they made durable; null for a store
     * without a log of its own.
     */
    public WalStats walStats() {
        return wal == null ? null : wal.stats();
    }

    /**
     * Stops the background thread (after the job in hand), writes and forces the log's pending
     * records, closes every file. The memtable is not flushed: its log replays it at the next open.
     */
    @Override
    public void close() {
        if (core.closing) {
            return;
        }
        core.closing = true;
        synchronized (core.stateLock) {
            core.stateLock.notifyAll(); // writers waiting for a flush or compaction go on
        }
        background.stop();
        if (wal != null) {
            wal.close(); // closes the directory too
        } else {
            try {
                core.dir.close();
            } catch (IOException e) {
                LOG.warn("closing {}: {}", core.options.dataDir(), e.toString());
            }
        }
        readPool.shutdown();
        core.closeFiles();
    }

    @Override
    public String toString() {
        return "LsmStore(" + core.options.dataDir() + ", " + core.options.compaction() + ")";
    }
}
