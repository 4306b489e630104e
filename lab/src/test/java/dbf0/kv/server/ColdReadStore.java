package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.bench.SimulatedDiskStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Test store that plays a disk: a key starting with "cold" is "on disk", and its read completes on
 * a thread of the store's own only once {@link #release()} is called; every other key is "in
 * memory" and answers at once. So a test can hold a connection's read for as long as it likes and
 * see what the server does meanwhile, with no timing involved.
 */
final class ColdReadStore extends SimulatedDiskStore implements AutoCloseable {

    private final ExecutorService disk = Executors.newCachedThreadPool();
    private final CountDownLatch released = new CountDownLatch(1);

    /** Counts down once per cold read started. */
    final CountDownLatch coldReadsStarted;

    ColdReadStore(int coldReads) {
        this.coldReadsStarted = new CountDownLatch(coldReads);
    }

    /** Lets every cold read, held or still to come, complete. */
    void release() {
        released.countDown();
    }

    private static boolean cold(ByteArrayWrapper key) {
        return new String(key.getArray(), StandardCharsets.UTF_8).startsWith("cold");
    }

    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        if (!cold(key)) {
            return CompletableFuture.completedFuture(data.get(key));
        }
        coldReadsStarted.countDown();
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        released.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                    return data.get(key);
                },
                disk);
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return getAsync(key).join(); // the blocking models wait here, on their own thread
    }

    @Override
    public void close() {
        release();
        disk.shutdownNow();
    }
}
