package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;

/**
 * A store that plays a disk with a fixed latency, for {@link DiskStallBench}: a key marked hot is
 * "cached" and answers at once; any other read sleeps {@code readNanos}, on the caller's thread
 * through {@link #get} and on one of {@code queueDepth} reader threads through {@link #getAsync} (a
 * disk serves that many reads at a time). It isolates what the server does with a slow read from
 * everything else an engine does.
 */
final class SleepingDiskStore extends SimulatedDiskStore implements AutoCloseable {

    private final java.util.Set<ByteArrayWrapper> hot = ConcurrentHashMap.newKeySet();
    private final long readNanos;
    private final ExecutorService readers;

    SleepingDiskStore(long readNanos, int queueDepth) {
        this.readNanos = readNanos;
        this.readers =
                Executors.newFixedThreadPool(
                        queueDepth, Thread.ofPlatform().daemon().name("disk-", 0).factory());
    }

    /** Marks {@code key} as cached: its reads cost no sleep. */
    void markHot(ByteArrayWrapper key) {
        hot.add(key);
    }

    private ByteArrayWrapper read(ByteArrayWrapper key) {
        if (!hot.contains(key)) {
            long until = System.nanoTime() + readNanos;
            long left;
            while ((left = until - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
        }
        return data.get(key);
    }

    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        if (hot.contains(key)) {
            return CompletableFuture.completedFuture(data.get(key));
        }
        return CompletableFuture.supplyAsync(() -> read(key), readers);
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return read(key);
    }

    @Override
    public void close() {
        readers.shutdownNow();
    }
}
