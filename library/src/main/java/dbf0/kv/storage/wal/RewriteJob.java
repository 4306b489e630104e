package dbf0.kv.storage.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One rewrite: the side buffer that keeps a copy of every append made after the rewrite's mark, the
 * new file, and who waits for it. The side buffer holds at most {@code limit} bytes: a rewrite that
 * falls further behind the writes is abandoned.
 */
final class RewriteJob {

    final CompletableFuture<Void> done;
    private final long limit;
    private final List<byte[]> copies = new ArrayList<>();
    private long copiedBytes;
    volatile boolean cancelled;
    volatile Throwable failure;
    // The rewrite thread's while it snapshots, then the writer thread's.
    WalFile file;
    long fileSize;

    RewriteJob(CompletableFuture<Void> done, long limit) {
        this.done = done;
        this.limit = limit;
    }

    /** The writer's copy of a batch; drops the rewrite when the copies pass the limit. */
    void buffer(ByteBuffer bytes) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.duplicate().get(copy);
        buffer(copy);
    }

    /**
     * Keeps {@code bytes} (not copied: the caller gives them up); drops the rewrite past the limit.
     */
    synchronized void buffer(byte[] bytes) {
        if (cancelled) {
            return;
        }
        if (copiedBytes + bytes.length > limit) {
            cancelled = true;
            failure =
                    new IOException(
                            "writes during the rewrite passed its "
                                    + limit
                                    + "-byte side buffer; abandoned (the log is unchanged)");
            copies.clear();
            return;
        }
        copies.add(bytes);
        copiedBytes += bytes.length;
    }

    /** Takes what the side buffer holds so far. */
    synchronized List<byte[]> take() {
        List<byte[]> taken = new ArrayList<>(copies);
        copies.clear();
        copiedBytes = 0;
        return taken;
    }

    /** Appends {@code bytes} to the new file. */
    void append(ByteBuffer bytes) throws IOException {
        int n = bytes.remaining();
        file.write(bytes, fileSize);
        fileSize += n;
    }
}
