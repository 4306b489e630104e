package dbf0.base.server;

import dbf0.common.RateLimitedLog;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The accept loop both server models share: take a connection, enforce the connection limit, hand
 * it over. When accept itself fails (most often "Too many open files" once the process is out of
 * file descriptors), it waits before trying again, 1 ms doubling to 1 s and back to 1 ms after the
 * next success: retrying at once would spin a core at 100% for as long as the descriptors stay used
 * up, and the failure is logged rate-limited, not once per attempt.
 */
final class Acceptor<S extends Closeable> implements Runnable {

    /** Takes the next connection, blocking until there is one. */
    interface Source<S> {
        S accept() throws IOException;
    }

    /** How the loop waits after a failure; tests count the waits instead of sleeping. */
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    static final long MIN_BACKOFF_MILLIS = 1;
    static final long MAX_BACKOFF_MILLIS = 1_000;

    private final String name;
    private final Source<S> source;
    private final AtomicInteger open;
    private final int maxConnections;
    private final Consumer<S> handOff;
    private final Runnable refused;
    private final BooleanSupplier closing;
    private final RateLimitedLog log;
    private final Sleeper sleeper;
    private long backoff = MIN_BACKOFF_MILLIS;

    /**
     * @param open connections open now; incremented for each one handed off (whoever closes the
     *     connection decrements it)
     * @param refused counts a connection closed for the limit
     */
    Acceptor(
            String name,
            Source<S> source,
            AtomicInteger open,
            int maxConnections,
            Consumer<S> handOff,
            Runnable refused,
            BooleanSupplier closing,
            RateLimitedLog log,
            Sleeper sleeper) {
        this.name = name;
        this.source = source;
        this.open = open;
        this.maxConnections = maxConnections;
        this.handOff = handOff;
        this.refused = refused;
        this.closing = closing;
        this.log = log;
        this.sleeper = sleeper;
    }

    @Override
    public void run() {
        while (!closing.getAsBoolean()) {
            S connection;
            try {
                connection = source.accept();
            } catch (IOException e) {
                if (closing.getAsBoolean()) {
                    return;
                }
                long wait = nextBackoff();
                log.warn("{}: accept failed: {}; retrying in {} ms", name, e.toString(), wait);
                try {
                    sleeper.sleep(wait);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                continue;
            }
            backoff = MIN_BACKOFF_MILLIS;
            if (open.incrementAndGet() > maxConnections) {
                open.decrementAndGet();
                refused.run();
                log.warn(
                        "{}: refused a connection: the limit of {} connections is reached",
                        name,
                        maxConnections);
                ServerLifecycle.closeQuietly(connection);
                continue;
            }
            handOff.accept(connection);
        }
    }

    /** The wait after one more failure in a row: 1, 2, 4 ... 512, 1000, 1000 ... ms. */
    long nextBackoff() {
        long wait = backoff;
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        return wait;
    }
}
