package dbf0.kv.server;

import java.util.Locale;

/**
 * How a server runs its connections. All three speak every protocol; they differ in what a
 * connection costs and in what happens when there are more connections than threads.
 */
public enum ServerModel {
    /**
     * The seed's: a fixed pool of {@code threads} platform threads, one connection per thread at a
     * time. Cheap for one-operation connections; with persistent connections, connection number
     * {@code threads + 1} waits until another one closes.
     */
    POOL,
    /** A virtual thread per connection: blocking code, but thousands of connections are cheap. */
    VIRTUAL,
    /** {@code threads} selector event loops; no connection ever blocks another. */
    NIO;

    /**
     * The name used on command lines: pool, virtual, nio.
     *
     * @return the lower-case name
     */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses pool, virtual or nio (any case).
     *
     * @param text a model's name
     * @return the model
     * @throws IllegalArgumentException naming the choices, if there is no such model
     */
    public static ServerModel parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown server model '" + text + "': use pool, virtual or nio");
        }
    }
}
