package dbf0.kv.storage.wal;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.FlushingThread;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

/**
 * A {@link Store} whose every change is appended to a write-ahead log before it is applied and
 * acknowledged, and which replays that log on start-up ({@link WalRecovery}). It wraps any store (a
 * map): reads go straight to it, writes go through the log.
 *
 * <p>Who appends depends on the caller. Under {@code interval} and {@code never}, and under {@link
 * FsyncPolicy#ALWAYS} for an event loop ({@link FlushingThread}), the caller's thread leaves its
 * record pending and a caller about to wait (the loop, at the end of its turn) writes everybody's
 * with one write call, under always with one fsync ({@link Combiner}). Any other thread under
 * always puts its write, as a task, on a bounded queue ({@value #QUEUE_CAPACITY} tasks; a full
 * queue blocks the submitter, which is the back-pressure) for the writer thread, whose {@link
 * GroupCommit} shares one fsync among concurrent writers: a blocked thread cannot flush for others
 * while it waits, the writer can. {@link WalRewrite} compacts the log in the background.
 *
 * <p>Either way a record is written before it is applied, so a reader never sees a write that a
 * crash of the process could still take back.
 *
 * <h2>Policies</h2>
 *
 * {@code always}: a future completes after the fsync covering its record. {@code interval}: after
 * the write call of the flush that took it; the writer wakes at least every {@code fsyncInterval}
 * and forces if records are unforced, so a power cut loses at most the writes of the last interval
 * (plus one fsync's time). {@code never}: after the write call; only the kernel's write-back makes
 * it durable. Under all three a crash of the process alone (SIGKILL) loses no completed write: it
 * is in the kernel.
 *
 * <h2>Failures</h2>
 *
 * If a write or a force fails, the futures of the records of that write call (a batch under always,
 * a flush under the others) fail with {@link StorageFailureException} (nothing of it is applied)
 * and the log is cut back to its last good size, so the next append lands after good records. If
 * that repair fails too, or a background force under {@code interval} fails (acknowledged writes
 * may then be lost: after a failed fsync Linux may drop the dirty pages and report the next fsync
 * clean), the store refuses every later write until restart; reads go on.
 */
public final class WalStore implements Store, Closeable {

    public static final String LOG_NAME = "dbf0.wal";
    public static final String REWRITE_NAME = "dbf0.wal.rewrite";

    /** Tasks the writer's queue holds under always; also the bound on pending records. */
    static final int QUEUE_CAPACITY = 16_384;

    private final WalLog log;
    private final WalRecovery recovery;
    private final Combiner combiner;
    private final WalRewrite rewrite;
    private final WalWriter writer;

    /** What an event loop owes under always: the flush itself, at the end of its turn. */
    private final Runnable flushNow;

    private WalStore(WalLog log, WalRecovery recovery, WalLimits limits) {
        this.log = log;
        this.recovery = recovery;
        BlockingQueue<WriterTask> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
        this.rewrite = new WalRewrite(log, queue, limits.rewriteSideBufferBytes());
        this.combiner = new Combiner(log, rewrite, limits.lateFlush().toNanos());
        this.writer = new WalWriter(log, queue, combiner, rewrite);
        this.flushNow = combiner::flush;
        writer.start();
    }

    /**
     * Opens (or creates) the log in {@code options.dataDir()}, replays it into {@code inner}. The
     * directory is created if missing, but not its parent ({@link FileChannelDirectory}).
     */
    public static WalStore open(Store inner, WalOptions options) throws IOException {
        FileChannelDirectory directory = new FileChannelDirectory(options.dataDir());
        try {
            return open(inner, options, directory);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    /**
     * Replays the log in {@code dir} into {@code inner} (which should be empty) and starts logging.
     * The store owns {@code dir} from here on and closes it.
     *
     * @throws CorruptWalException when a bad record has good ones after it and {@link
     *     WalOptions#recoverTruncate()} is off
     */
    public static WalStore open(Store inner, WalOptions options, WalDirectory dir)
            throws IOException {
        return open(inner, options, dir, WalLimits.DEFAULTS);
    }

    /** Like {@link #open(Store, WalOptions, WalDirectory)}, with other {@link WalLimits}. */
    public static WalStore open(Store inner, WalOptions options, WalDirectory dir, WalLimits limits)
            throws IOException {
        return open(inner, options, dir, limits, LOG_NAME, null);
    }

    /**
     * Like {@link #open(Store, WalOptions, WalDirectory, WalLimits)}, with the log named {@code
     * logName}, and a {@code rotation} that may switch to a new file before any write call (the LSM
     * store's log per memtable); null for none. A store with a rotation should turn automatic
     * rewrites off ({@link WalOptions#withRewrite}): a rewrite knows one file name only.
     */
    public static WalStore open(
            Store inner,
            WalOptions options,
            WalDirectory dir,
            WalLimits limits,
            String logName,
            LogRotation rotation)
            throws IOException {
        Objects.requireNonNull(inner, "inner");
        Objects.requireNonNull(limits, "limits");
        WalRecovery.Replayed replayed = WalRecovery.replay(inner, options, dir, logName);
        try {
            WalRecovery recovery = replayed.recovery();
            WalLog log =
                    new WalLog(
                            inner,
                            options,
                            dir,
                            logName,
                            replayed.file(),
                            recovery.bytes(),
                            rotation);
            return new WalStore(log, recovery, limits);
        } catch (RuntimeException | Error e) {
            replayed.file().close();
            throw e;
        }
    }

    /** What start-up found. */
    public WalRecovery recovery() {
        return recovery;
    }

    public WalOptions options() {
        return log.options;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return log.inner.get(key);
    }

    @Override
    public boolean contains(ByteArrayWrapper key) {
        return log.inner.contains(key);
    }

    @Override
    public int size() {
        return log.inner.size();
    }

    /** The inner store's bound: a logged write reaches the data only through its put. */
    @Override
    public long largestValueBytes() {
        return log.inner.largestValueBytes();
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        log.inner.forEach(action);
    }

    /** The inner store's answer: the log adds no order of its own. */
    @Override
    public boolean ordered() {
        return log.inner.ordered();
    }

    /**
     * The inner store's scan, like every read: a write is applied to it only once its record is
     * written, so a scan never sees a write a crash could still take back.
     */
    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        return log.inner.scan(from, toExclusive, limit);
    }

    // ---------------------------------------------------------------- writes

    /**
     * Blocks until the put is durable as the policy promises.
     *
     * @throws StorageFailureException if it cannot be
     */
    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        CompletableFuture<Boolean> done = putAsync(key, value);
        flushNow.run(); // the caller waits: nothing to owe its turn's end to
        await(done);
    }

    /** Blocks like {@link #put}; true if the key was there. */
    @Override
    public boolean delete(ByteArrayWrapper key) {
        CompletableFuture<Boolean> done = deleteAsync(key);
        flushNow.run();
        return await(done);
    }

    @Override
    public void clear() {
        CompletableFuture<Boolean> done = clearAsync();
        flushNow.run(); // the caller waits: nothing to owe its turn's end to
        await(done);
    }

    /**
     * Completes (true) once the put is applied and as durable as the policy promises, or fails with
     * {@link StorageFailureException}. Under interval and never it is written at the next {@link
     * #flush}: call that before waiting.
     */
    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return submit(new WalRecord.Put(key, value));
    }

    /** Completes with whether the key was there, like {@link #putAsync}. */
    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        return submit(new WalRecord.Delete(key));
    }

    @Override
    public CompletableFuture<Boolean> clearAsync() {
        return submit(new WalRecord.Clear());
    }

    /**
     * Writes every accepted record not yet written (any caller's) with one write call (under {@code
     * always} forced), applies them in order and then completes their futures; writes queued to the
     * writer thread under {@code always} are its business, not this. Sessions call it before they
     * wait; an event loop once per turn.
     */
    @Override
    public void flush() {
        FlushingThread loop = FlushingThread.current();
        if (loop != null && log.options.fsync() == FsyncPolicy.ALWAYS) {
            // An fsync per read that must see its connection's writes would cost more than the
            // wait: one at the turn's end serves every connection of the turn.
            loop.owe(flushNow);
            return;
        }
        combiner.flush(); // a write call without an fsync: cheap enough to make now
    }

    /**
     * Flushes every caller's pending records and, under {@code always}, waits until the writer
     * thread has done the writes queued to it before the call: a sync queued behind them completes
     * only after they are written and applied (it costs an fsync).
     *
     * @throws StorageFailureException if the log fails meanwhile
     */
    @Override
    public void awaitSubmitted() {
        combiner.flush();
        if (log.options.fsync() == FsyncPolicy.ALWAYS) {
            try {
                syncAsync().join();
            } catch (CompletionException e) {
                throw new StorageFailureException(
                        "the log failed while waiting for submitted writes: "
                                + e.getCause().getMessage(),
                        e.getCause());
            }
        }
    }

    private CompletableFuture<Boolean> submit(WalRecord record) {
        if (WalRecord.bodySize(record) > WalRecord.MAX_BODY_BYTES) {
            return CompletableFuture.failedFuture(
                    new StorageFailureException(
                            "a record of "
                                    + WalRecord.bodySize(record)
                                    + " bytes is over the log's "
                                    + WalRecord.MAX_BODY_BYTES));
        }
        StorageFailureException failure = log.broken;
        if (failure != null) {
            return CompletableFuture.failedFuture(failure);
        }
        if (log.options.fsync() != FsyncPolicy.ALWAYS || FlushingThread.current() != null) {
            return combiner.accept(record); // an event loop flushes (and forces) once per turn
        }
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        writer.enqueue(new WriterTask.Write(record, done), done);
        return done;
    }

    private static boolean await(CompletableFuture<Boolean> done) {
        try {
            return done.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // A new exception, so that the stack shows the waiting caller as well as the writer's
            // cause.
            throw new StorageFailureException(cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageFailureException(
                    "interrupted while waiting for the log; the write may or may not be kept", e);
        }
    }

    // ---------------------------------------------------------------- the log as a whole

    /**
     * Starts a rewrite unless one runs; completes when the rewrite (the new one or the running one)
     * has switched files, or fails with why it did not.
     */
    public CompletableFuture<Void> rewriteAsync() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        writer.enqueue(new WriterTask.StartRewrite(done), done);
        return done;
    }

    /** Forces the log now, whatever the policy; for tests and for a clean shutdown. */
    public CompletableFuture<Void> syncAsync() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        writer.enqueue(new WriterTask.Sync(done), done);
        return done;
    }

    public WalStats stats() {
        return log.stats(rewrite);
    }

    /** Stops taking writes, finishes the queued ones, forces the log and closes the files. */
    @Override
    public void close() {
        writer.stop();
    }

    @Override
    public String toString() {
        return "WalStore("
                + log.describe()
                + ", fsync "
                + log.options.fsync().cliName()
                + ", over "
                + log.inner
                + ")";
    }
}
