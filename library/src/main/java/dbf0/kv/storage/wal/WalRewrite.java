package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalStore.LOG_NAME;
import static dbf0.kv.storage.wal.WalStore.REWRITE_NAME;

import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrite (compaction): the log only grows, and a rewrite replaces it with one put per live key.
 *
 * <p>A point between two appends is marked (under the log's lock), from which every append's bytes
 * are copied into a side buffer ({@link RewriteJob}) as well as the log. A rewrite thread writes a
 * snapshot of the store ({@link Store#forEach}) to {@value WalStore#REWRITE_NAME}, then the side
 * buffer; the writer thread, between two appends again, appends what the side buffer gained
 * meanwhile, forces the new file, renames it over the log and forces the directory.
 *
 * <p>The snapshot may or may not see a change made after the mark (a concurrent map's iterator is
 * weakly consistent), but every such change is in the side buffer and is replayed after it; puts,
 * deletes and clears overwrite, so the result is the store's state. A record still pending at the
 * mark is written and applied after it, so it is in the side buffer too; one pending at the switch
 * is written to the new file. Until the rename the old log is complete and is the truth, so a crash
 * or a failure during a rewrite loses nothing.
 */
final class WalRewrite {

    /** Bytes the rewrite thread gathers before one write call. */
    private static final int CHUNK = 1 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(WalRewrite.class);

    private final WalLog log;
    private final BlockingQueue<WriterTask> writerQueue;
    private final long sideBufferLimit;

    // Figures for other threads (INFO), written under the log's lock.
    private volatile long count;
    private volatile boolean running;
    private volatile long lastMillis;
    private volatile String lastStatus = "none";

    WalRewrite(WalLog log, BlockingQueue<WriterTask> writerQueue, long sideBufferLimit) {
        this.log = log;
        this.writerQueue = writerQueue;
        this.sideBufferLimit = sideBufferLimit;
    }

    long count() {
        return count;
    }

    boolean running() {
        return running;
    }

    long lastMillis() {
        return lastMillis;
    }

    String lastStatus() {
        return lastStatus;
    }

    /** After an append: starts a rewrite if the log has grown enough. Under the log's lock. */
    void maybeStart() {
        WalOptions options = log.options;
        if (log.rewrite != null
                || options.rewriteGrowth() == 0
                || log.size < options.rewriteMinBytes()
                || log.size < options.rewriteGrowth() * log.baseSize) {
            return;
        }
        // baseSize is 0 until the first rewrite (an empty log), so name the minimum, not a ratio.
        LOG.info(
                "the log grew to {} bytes (past the {}-byte minimum and {}x the {} bytes after the"
                        + " last rewrite): rewriting",
                log.size,
                options.rewriteMinBytes(),
                options.rewriteGrowth(),
                log.baseSize);
        start(new CompletableFuture<>());
    }

    /** Marks the point and starts the rewrite thread, or joins the running rewrite. Under lock. */
    void start(CompletableFuture<Void> done) {
        if (log.rewrite != null) {
            log.rewrite.done.whenComplete(
                    (v, e) -> {
                        if (e != null) {
                            done.completeExceptionally(e);
                        } else {
                            done.complete(null);
                        }
                    });
            return;
        }
        if (log.broken != null) {
            done.completeExceptionally(log.broken);
            return;
        }
        RewriteJob job = new RewriteJob(done, sideBufferLimit);
        log.rewrite = job;
        running = true;
        Thread thread = new Thread(() -> snapshot(job), "wal-rewrite");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The rewrite thread: the snapshot and what the side buffer holds so far, into the new file.
     */
    private void snapshot(RewriteJob job) {
        try {
            log.dir.delete(REWRITE_NAME);
            job.file = log.dir.open(REWRITE_NAME);
            ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
            log.inner.forEach(
                    (key, value) -> {
                        if (job.cancelled) {
                            throw new StopSnapshot();
                        }
                        WalRecord.Put put = new WalRecord.Put(key, value);
                        int size = (int) WalRecord.encodedSize(put);
                        try {
                            if (chunk.remaining() < size) {
                                writeChunk(job, chunk);
                            }
                            if (size > chunk.capacity()) {
                                job.append(ByteBuffer.wrap(WalRecord.encode(put)));
                            } else {
                                WalRecord.encode(put, chunk);
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
            writeChunk(job, chunk);
            // Catch up on the side buffer a few times, so that the writer's share at the switch is
            // small.
            for (int round = 0; round < 4 && !job.cancelled; round++) {
                long taken = 0;
                for (byte[] part : job.take()) {
                    job.append(ByteBuffer.wrap(part));
                    taken += part.length;
                }
                if (taken < CHUNK) {
                    break;
                }
            }
            job.file.force();
        } catch (StopSnapshot e) {
            job.failure = job.failure != null ? job.failure : new IOException("cancelled");
        } catch (UncheckedIOException e) {
            job.failure = e.getCause();
        } catch (IOException | RuntimeException e) {
            job.failure = e;
        }
        // offer, not put: after close nobody drains the queue, and the next start deletes the file
        if (!writerQueue.offer(new WriterTask.FinishRewrite(job))) {
            try {
                writerQueue.put(new WriterTask.FinishRewrite(job));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A stop signal out of {@link Store#forEach}. */
    private static final class StopSnapshot extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StopSnapshot() {
            super(null, null, false, false);
        }
    }

    private static void writeChunk(RewriteJob job, ByteBuffer chunk) throws IOException {
        chunk.flip();
        job.append(chunk);
        chunk.clear();
    }

    /**
     * The writer, between appends (under the log's lock): the last of the side buffer, force,
     * rename, directory force, switch.
     */
    void finish(RewriteJob job) {
        if (job != log.rewrite) {
            return; // a job the store already gave up (closing)
        }
        Throwable failure =
                job.cancelled && job.failure == null ? new IOException("cancelled") : job.failure;
        if (failure == null) {
            try {
                for (byte[] part : job.take()) {
                    job.append(ByteBuffer.wrap(part));
                }
                job.file.force();
                log.dir.rename(REWRITE_NAME, LOG_NAME);
            } catch (IOException e) {
                failure = e;
            }
        }
        if (failure != null) {
            abandon(job, failure);
            return;
        }
        // From here the new file holds the log's name. Its records are durable, but the name is not
        // until the directory is forced: nothing may be acknowledged from the new file before that.
        WalFile old = log.file;
        log.file = job.file;
        log.size = job.fileSize;
        log.baseSize = log.size;
        log.rewrite = null;
        running = false;
        try {
            log.dir.sync();
        } catch (IOException e) {
            log.breakStore("the directory force after a rewrite failed (" + e + ")", e);
        }
        try {
            old.close();
        } catch (IOException e) {
            LOG.warn("closing the old log: {}", e.toString());
        }
        log.rebased();
        count++;
        lastMillis = System.currentTimeMillis();
        lastStatus = "ok";
        LOG.info("log rewritten: {} bytes", log.size);
        job.done.complete(null);
    }

    private void abandon(RewriteJob job, Throwable failure) {
        log.rewrite = null;
        running = false;
        log.rebased(); // wait for the log to grow again before the next automatic try
        try {
            if (job.file != null) {
                job.file.close();
            }
            log.dir.delete(REWRITE_NAME);
        } catch (IOException e) {
            LOG.warn("cleaning up an abandoned rewrite: {}", e.toString());
        }
        lastMillis = System.currentTimeMillis();
        lastStatus = "failed: " + failure;
        LOG.warn("log rewrite abandoned, the log is unchanged: {}", failure.toString());
        job.done.completeExceptionally(
                new StorageFailureException("rewrite failed: " + failure, failure));
    }

    /** At close: gives up a running rewrite. Under the log's lock. */
    void cancel() {
        if (log.rewrite != null) {
            log.rewrite.cancelled = true;
            log.rewrite.done.completeExceptionally(
                    new StorageFailureException("the store closed during the rewrite"));
        }
    }
}
