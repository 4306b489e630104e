package dbf0.kv.storage.wal;

import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Group commit under {@code always}: the writer thread takes every write queued at once, writes
 * them with one write call and forces them with one fsync; only then does it apply them to the
 * wrapped store, in log order, and complete each writer's future. Concurrent writers share one
 * fsync (the more of them, the more records per fsync, {@link WalStats#recordsPerFsync}), and an
 * fsync costs far more than the hand-off to the thread and back. The writer thread's alone.
 */
final class GroupCommit {

    /** A batch's buffer above this size is not kept: one huge batch should not pin it for good. */
    private static final int KEPT_BUFFER_BYTES = 16 << 20;

    private final WalLog log;
    private final WalRewrite rewrite;
    private final BlockingQueue<WriterTask> queue;

    /** Writes in the last batch committed: how many writers are likely about to come back. */
    private int lastCommitWrites;

    private ByteBuffer batchBuffer = ByteBuffer.allocate(64 * 1024);

    GroupCommit(WalLog log, WalRewrite rewrite, BlockingQueue<WriterTask> queue) {
        this.log = log;
        this.rewrite = rewrite;
        this.queue = queue;
    }

    /**
     * The writers of the last fsync got their replies together and send their next writes together,
     * but not at the same instant: the first few arrive while the rest are still on their way, and
     * forcing at once would split one crowd over two or three fsyncs. So, when the batch is smaller
     * than the last commit's, wait up to {@link WalOptions#commitWaitMicros} for the others
     * (PostgreSQL's {@code commit_delay} is the same idea). A lone writer never waits, and neither
     * does a batch already as big as the last; the wait is bounded, so a crowd that shrank costs at
     * most one wait before the target follows it down.
     */
    void gather(List<WriterTask> batch) throws InterruptedException {
        WalOptions options = log.options;
        if (options.fsync() != FsyncPolicy.ALWAYS
                || options.commitWaitMicros() == 0
                || batch.size() >= lastCommitWrites) {
            return;
        }
        long deadline = System.nanoTime() + options.commitWaitMicros() * 1_000L;
        while (batch.size() < lastCommitWrites) {
            long left = deadline - System.nanoTime();
            WriterTask next = left <= 0 ? null : queue.poll(left, TimeUnit.NANOSECONDS);
            if (next == null) {
                return;
            }
            batch.add(next);
            queue.drainTo(batch);
        }
    }

    /** Takes the log's lock and {@link #commit}s. */
    void commitLocked(List<WriterTask.Write> writes) {
        if (writes.isEmpty()) {
            return;
        }
        log.lock.lock();
        try {
            commit(writes);
        } finally {
            log.lock.unlock();
        }
    }

    /** Appends one batch of writes, forces it, applies it and acknowledges it; under the lock. */
    private void commit(List<WriterTask.Write> writes) {
        if (log.broken != null) {
            for (WriterTask.Write w : writes) {
                w.done().completeExceptionally(log.broken);
            }
            return;
        }
        ByteBuffer bytes = encode(writes);
        try {
            log.beforeAppend();
            log.file.write(bytes.duplicate(), log.size);
            log.file.force();
            lastCommitWrites = writes.size();
            log.forcedWith(writes.size());
        } catch (IOException e) {
            StorageFailureException failure = log.failed("write or force", e);
            for (WriterTask.Write w : writes) {
                w.done().completeExceptionally(failure);
            }
            log.repair(e);
            return;
        }
        log.written(bytes.remaining(), writes.size());
        log.copyToRewrite(bytes);
        boolean[] results = new boolean[writes.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = log.apply(writes.get(i).record());
        }
        for (int i = 0; i < results.length; i++) {
            writes.get(i).done().complete(results[i]);
        }
        rewrite.maybeStart();
    }

    private ByteBuffer encode(List<WriterTask.Write> writes) {
        long size = 0;
        for (WriterTask.Write w : writes) {
            size += WalRecord.encodedSize(w.record());
        }
        if (size > Integer.MAX_VALUE - 8) {
            // cannot happen: records and queue are bounded
            throw new IllegalStateException("a batch of " + size + " bytes");
        }
        if (batchBuffer.capacity() < size) {
            batchBuffer = ByteBuffer.allocate((int) Math.max(size, batchBuffer.capacity() * 2L));
        }
        batchBuffer.clear();
        for (WriterTask.Write w : writes) {
            WalRecord.encode(w.record(), batchBuffer);
        }
        batchBuffer.flip();
        if (batchBuffer.capacity() > KEPT_BUFFER_BYTES) {
            ByteBuffer copy = ByteBuffer.allocate(batchBuffer.remaining()).put(batchBuffer).flip();
            batchBuffer = ByteBuffer.allocate(64 * 1024);
            return copy;
        }
        return batchBuffer;
    }
}
