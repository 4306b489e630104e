package dbf0.kv.client;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the clients' blocking methods wait: each is its {@code ...Async} counterpart followed by
 * {@link #await}, so both kinds of call fail the same way. {@link KeyValueClient} and {@link
 * ShardedKeyValueClient} share it, and their class comments say what callers see.
 */
final class BlockingCalls {

    private BlockingCalls() {}

    /**
     * Waits at most {@code timeout} for the future, and throws its failure unwrapped: an {@link
     * IOException} or a {@link RuntimeException} as it is, anything else wrapped in an {@link
     * IOException}. A timeout or an interrupt is an {@link IOException} too (an interrupt keeps the
     * thread's interrupt flag set).
     */
    static <T> T await(CompletableFuture<T> future, Duration timeout) throws IOException {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no reply within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a reply", e);
        }
    }
}
