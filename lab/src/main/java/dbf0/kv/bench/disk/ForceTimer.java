package dbf0.kv.bench.disk;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The force of fsync policy {@code interval} for an engine that has no such timer of its own: every
 * period a daemon thread calls the engine's force. It counts the forces that succeeded, and
 * remembers the first that failed: a failed fsync may have dropped written pages from the kernel's
 * cache, so the engine must stop acknowledging writes ({@link #check()}) rather than print a
 * warning and go on as if they were safe.
 */
final class ForceTimer implements AutoCloseable {

    /** What the timer calls: forces the engine's log or file to disk. */
    @FunctionalInterface
    interface Force {
        void force() throws Exception;
    }

    private final ScheduledExecutorService timer;
    private final AtomicLong forces = new AtomicLong();
    private final AtomicReference<String> failure = new AtomicReference<>();

    /**
     * Starts forcing every {@code period} on a thread named {@code name}.
     *
     * @param name the thread's name, for a thread dump
     * @param period time between two forces
     * @param force what to call
     */
    ForceTimer(String name, Duration period, Force force) {
        timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, name);
                            t.setDaemon(true);
                            return t;
                        });
        long nanos = period.toNanos();
        timer.scheduleAtFixedRate(() -> run(force), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private void run(Force force) {
        if (failure.get() != null) {
            return;
        }
        try {
            force.force();
            forces.incrementAndGet();
        } catch (Exception | LinkageError e) {
            failure.compareAndSet(null, String.valueOf(e.getMessage()));
        }
    }

    /** The forces that succeeded so far. */
    long forces() {
        return forces.get();
    }

    /**
     * Throws if a force failed: called before every write.
     *
     * @throws IOException naming the failure
     */
    void check() throws IOException {
        String failed = failure.get();
        if (failed != null) {
            throw new IOException(
                    "the timed force failed, so writes are no longer safe: " + failed);
        }
    }

    /**
     * Stops the timer and waits for a force in progress: not interrupted, because an interrupt
     * closes a {@link java.nio.channels.FileChannel} in the middle of its force.
     */
    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
