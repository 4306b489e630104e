package dbf0.kv.storage.wal;

import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log writer thread. Under {@code always} it runs {@link GroupCommit} on the writes queued to
 * it; under every policy it does what is not a write: the background force under {@code interval}
 * (taken without the log's lock, so writes go on during the fsync), the {@link Combiner}'s safety
 * net, rewrites, syncs and the last flush and force at close.
 */
final class WalWriter {

    /**
     * How often (10 ms) the writer looks for late records while none were waiting when it last
     * looked: a forgotten flush costs at most about 11 ms, and an idle store wakes 100 times a
     * second.
     */
    static final long IDLE_LOOK_NANOS = 10_000_000;

    private static final Logger LOG = LoggerFactory.getLogger(WalWriter.class);

    private final WalLog log;
    private final BlockingQueue<WriterTask> queue;
    private final GroupCommit groupCommit;
    private final Combiner combiner;
    private final WalRewrite rewrite;

    /**
     * Submitters hold it shared, close holds it alone: no task is queued after the writer's last.
     */
    private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();

    private final Thread thread;

    WalWriter(WalLog log, BlockingQueue<WriterTask> queue, Combiner combiner, WalRewrite rewrite) {
        this.log = log;
        this.queue = queue;
        this.groupCommit = new GroupCommit(log, rewrite, queue);
        this.combiner = combiner;
        this.rewrite = rewrite;
        this.thread = new Thread(this::run, "wal-writer");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Queues a task; a full queue blocks the caller, which is the back-pressure. */
    void enqueue(WriterTask task, CompletableFuture<?> done) {
        closing.readLock().lock();
        try {
            if (log.closed) {
                done.completeExceptionally(new StorageFailureException("the store is closed"));
                return;
            }
            queue.put(task);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done.completeExceptionally(
                    new StorageFailureException("interrupted before the write was queued", e));
        } finally {
            closing.readLock().unlock();
        }
    }

    /** Stops taking tasks; the writer finishes the queued ones, forces the log and closes it. */
    void stop() {
        closing.writeLock().lock();
        try {
            if (log.closed) {
                return;
            }
            log.lock.lock();
            try {
                combiner.close(); // nothing accepted after this, so nothing pending after the last
                // flush
            } finally {
                log.lock.unlock();
            }
            queue.add(new WriterTask.Stop()); // cannot fail for space: nothing more is queued
        } catch (IllegalStateException full) {
            // The queue is full: the writer is alive and draining, so wait for room.
            try {
                queue.put(new WriterTask.Stop());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } finally {
            closing.writeLock().unlock();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            Exception where = new Exception("the log writer is here");
            where.setStackTrace(thread.getStackTrace());
            LOG.error("the log writer did not stop within 30 s of close", where);
        }
    }

    private void run() {
        FsyncPolicy policy = log.options.fsync();
        List<WriterTask> batch = new ArrayList<>();
        List<WriterTask.Write> writes = new ArrayList<>();
        boolean stop = false;
        try {
            while (!stop) {
                // Combined writes (all but always's queued ones) do not come through the queue, so
                // the writer wakes on a timer as well: for the safety net's late flush, and under
                // interval for the force.
                WriterTask first = queue.poll(untilNextLook(), TimeUnit.NANOSECONDS);
                if (first != null) {
                    batch.add(first);
                    queue.drainTo(batch);
                    groupCommit.gather(batch);
                    for (WriterTask task : batch) {
                        if (task instanceof WriterTask.Write w) {
                            writes.add(w);
                            continue;
                        }
                        // control tasks run between batches: everything before them is applied
                        groupCommit.commitLocked(writes);
                        writes.clear();
                        stop |= control(task); // a FinishRewrite may follow the Stop in one batch
                    }
                    groupCommit.commitLocked(writes);
                    writes.clear();
                    batch.clear();
                }
                combiner.flushLate();
                if (policy == FsyncPolicy.INTERVAL) {
                    intervalForce();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // A bug, not a disk: fail loudly, and fail every waiter rather than leave it hanging.
            LOG.error("the log writer died; writes are refused from now on", e);
            log.lock.lock();
            try {
                log.broken = new StorageFailureException("the log writer died: " + e, e);
            } finally {
                log.lock.unlock();
            }
            for (WriterTask task : batch) {
                fail(task, log.broken);
            }
        } finally {
            shutDown();
        }
    }

    /**
     * Nanoseconds until the writer should look again: when the oldest pending record is late, or
     * after {@link #IDLE_LOOK_NANOS} when none is pending; under interval no later than the next
     * force is due.
     */
    private long untilNextLook() {
        log.lock.lock();
        try {
            long now = System.nanoTime();
            long wait = combiner.nanosUntilLate(now, IDLE_LOOK_NANOS);
            WalOptions options = log.options;
            if (options.fsync() == FsyncPolicy.INTERVAL
                    && log.unforcedRecords > 0
                    && log.broken == null) {
                wait =
                        Math.min(
                                wait,
                                options.fsyncInterval().toNanos() - (now - log.lastForceNanos));
            }
            // with nothing unforced, a write from now on is looked at (and forced if an interval
            // has passed since the last force) within one idle look
            return Math.max(0, wait);
        } finally {
            log.lock.unlock();
        }
    }

    /** Runs a control task; true for {@link WriterTask.Stop}. */
    private boolean control(WriterTask task) {
        switch (task) {
            case WriterTask.StartRewrite start -> {
                log.lock.lock();
                try {
                    rewrite.start(start.done());
                } finally {
                    log.lock.unlock();
                }
            }
            case WriterTask.FinishRewrite finish -> {
                log.lock.lock();
                try {
                    rewrite.finish(finish.job());
                } finally {
                    log.lock.unlock();
                }
            }
            case WriterTask.Sync sync -> {
                try {
                    combiner.flush(); // what was accepted before the sync is written: the force
                    // covers it
                    log.force();
                    sync.done().complete(null);
                } catch (IOException e) {
                    sync.done().completeExceptionally(log.failed("force", e));
                }
            }
            case WriterTask.Stop stop -> {
                return true;
            }
            case WriterTask.Write w ->
                    throw new IllegalStateException("writes are batched, not run as control tasks");
        }
        return false;
    }

    /** Forces under interval if records are unforced and an interval has passed since the last. */
    private void intervalForce() {
        log.lock.lock();
        try {
            if (log.broken != null
                    || log.unforcedRecords == 0
                    || System.nanoTime() - log.lastForceNanos
                            < log.options.fsyncInterval().toNanos()) {
                return;
            }
        } finally {
            log.lock.unlock();
        }
        try {
            log.force();
        } catch (IOException e) {
            // Acknowledged writes may be lost now: stop acknowledging more.
            log.lock.lock();
            try {
                log.breakStore(
                        "the background force failed ("
                                + e
                                + "); the last interval's writes may be lost",
                        e);
            } finally {
                log.lock.unlock();
            }
        }
    }

    private static void fail(WriterTask task, StorageFailureException failure) {
        switch (task) {
            case WriterTask.Write w -> w.done().completeExceptionally(failure);
            case WriterTask.StartRewrite s -> s.done().completeExceptionally(failure);
            case WriterTask.Sync s -> s.done().completeExceptionally(failure);
            case WriterTask.FinishRewrite f -> f.job().cancelled = true;
            case WriterTask.Stop s -> {}
        }
    }

    private void shutDown() {
        List<Combiner.Pending> written;
        log.lock.lock();
        try {
            // Accepted before close (nothing is after it): written, so that the final force covers
            // them.
            written = combiner.writePending();
            shutDownLocked();
        } finally {
            log.lock.unlock();
        }
        Combiner.complete(written);
    }

    private void shutDownLocked() {
        // Nothing can be queued any more once closed; fail what a dead writer left behind.
        StorageFailureException gone =
                log.broken != null
                        ? log.broken
                        : new StorageFailureException("the store is closed");
        List<WriterTask> left = new ArrayList<>();
        queue.drainTo(left);
        for (WriterTask task : left) {
            fail(task, gone);
        }
        rewrite.cancel();
        try {
            if (log.broken == null && log.options.fsync() != FsyncPolicy.ALWAYS) {
                log.force();
            }
        } catch (IOException e) {
            LOG.error("the final force of {} failed: {}", log.describe(), e.toString());
        }
        try {
            log.file.close();
        } catch (IOException e) {
            LOG.warn("closing the log: {}", e.toString());
        }
        try {
            log.dir.close();
        } catch (IOException e) {
            LOG.warn("closing the data directory: {}", e.toString());
        }
    }
}
