package dbf0.kv.storage.btree;

import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.wal.LogRotation;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When checkpoints run, and the thread that writes them. The write-ahead log asks {@link #next}
 * before each of its write calls, holding its lock, so no change runs then: the moment to take a
 * checkpoint's copy. Once a quarter of the pool is dirty, or the log holds {@link
 * BTreeOptions#checkpointLogBytes}, it starts a new log, copies the dirty pages and hands them to
 * its thread ({@code btree-checkpoint}); when they are in place it deletes the logs before the new
 * one. Writers wait in {@link #throttle} while a checkpoint runs and three quarters of the pool are
 * dirty, so that the pool's dirty pages stay within its bound.
 */
final class Checkpointer implements LogRotation {

    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

    private final BTree tree;
    private final WalDirectory dir;
    private final WalFile doubleWrite;
    private final long logBytes;
    private final ExecutorService thread;
    private final Object lock = new Object();

    // Guarded by lock.
    private boolean running;
    private boolean closing;
    private long nextLog;
    private long checkpoints;
    private long finishedLogBytes;
    private long pageBytes;
    private volatile StorageFailureException broken;

    Checkpointer(BTree tree, WalDirectory dir, WalFile doubleWrite, long logBytes, long nextLog) {
        this.tree = tree;
        this.dir = dir;
        this.doubleWrite = doubleWrite;
        this.logBytes = logBytes;
        this.nextLog = nextLog;
        this.thread =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "btree-checkpoint");
                            t.setDaemon(true);
                            return t;
                        });
    }

    private long triggerBytes() {
        return tree.pool.capacityBytes() / 4;
    }

    private long stallBytes() {
        return tree.pool.capacityBytes() * 3 / 4;
    }

    @Override
    public Next next(long bytes) throws IOException {
        synchronized (lock) {
            if (running || closing || broken != null) {
                return null;
            }
            if (tree.pool.dirtyBytes() < triggerBytes() && bytes < logBytes) {
                return null;
            }
            running = true;
        }
        long number;
        WalFile file;
        try {
            synchronized (lock) {
                number = nextLog++;
            }
            file = dir.open(BTreeRecovery.logName(number));
            dir.sync(); // the new log's name survives a power cut before anything in it is acked
            synchronized (lock) {
                finishedLogBytes += bytes; // the log that ends here; the new one starts empty
            }
        } catch (IOException | RuntimeException e) {
            done();
            throw e;
        }
        Checkpoint.Snapshot snapshot = Checkpoint.take(tree, number);
        thread.execute(() -> write(snapshot));
        return new Next(BTreeRecovery.logName(number), file);
    }

    private void write(Checkpoint.Snapshot snapshot) {
        try {
            Checkpoint.write(snapshot, tree.pool, doubleWrite);
            BTreeRecovery.deleteLogsBefore(dir, snapshot.meta().logNumber);
            synchronized (lock) {
                checkpoints++;
                // each page twice: its copy in the double-write file, then in place
                pageBytes += 2L * snapshot.size() * tree.pool.pageSize();
            }
        } catch (IOException | RuntimeException e) {
            // The tree's file may hold part of this checkpoint: recovery repairs that from the
            // double-write file, but this process cannot trust its file any more.
            broken =
                    new StorageFailureException(
                            "a checkpoint of the B+tree failed ("
                                    + e.getMessage()
                                    + "); writes are refused until restart, reads go on",
                            e);
            LOG.error("{}", broken.getMessage());
        } finally {
            done();
        }
    }

    private void done() {
        synchronized (lock) {
            running = false;
            lock.notifyAll();
        }
    }

    /** Before a write: fails if a checkpoint failed; waits while the pool is too dirty. */
    void throttle() {
        StorageFailureException b = broken;
        if (b != null) {
            throw b;
        }
        synchronized (lock) {
            while (running && tree.pool.dirtyBytes() >= stallBytes()) {
                try {
                    lock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StorageFailureException("interrupted while the pool was full", e);
                }
            }
        }
    }

    /** Work that must run while no checkpoint does: it gets the number of the current log. */
    @FunctionalInterface
    interface Exclusive<T> {
        T run(long currentLog) throws IOException;
    }

    /**
     * Waits for the running checkpoint, if any, then runs {@code work} while none may start.
     *
     * @throws StorageFailureException if a checkpoint failed before, or the store is closing
     */
    <T> T exclusive(Exclusive<T> work) throws IOException {
        long current;
        synchronized (lock) {
            while (running) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StorageFailureException("interrupted while waiting for a checkpoint");
                }
            }
            if (broken != null) {
                throw broken;
            }
            if (closing) {
                throw new StorageFailureException("the store is closed");
            }
            running = true;
            current = nextLog - 1; // the one the last checkpoint started, and its meta names
        }
        try {
            return work.run(current);
        } finally {
            done();
        }
    }

    /** Refuses writes and checkpoints from now on, for {@code why}, until the store is reopened. */
    void fail(String why) {
        broken = new StorageFailureException(why);
        LOG.error("{}", why);
    }

    /** Checkpoints completed since open. */
    long checkpoints() {
        synchronized (lock) {
            return checkpoints;
        }
    }

    /**
     * Bytes written since open to logs that have ended and, twice each, to the pages of finished
     * checkpoints; the current log's size adds the rest.
     */
    long bytesWritten() {
        synchronized (lock) {
            return finishedLogBytes + pageBytes;
        }
    }

    /** Starts no more checkpoints and waits for the running one, if any. */
    void quiesce() {
        synchronized (lock) {
            closing = true;
            while (running) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Stops the thread; after {@link #quiesce}. */
    void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.warn("a checkpoint still runs after 60 s; closing without it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
