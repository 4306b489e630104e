package dbf0.kv.bench;

import java.util.Locale;

/**
 * What each load-generating client of the benchmark runs on.
 *
 * <p>Every client blocks on its own socket. With platform threads, 1,000 clients are 1,000 kernel
 * threads that the scheduler switches between on the same cores as the server, so a run with many
 * connections measures that switching as much as the server. Virtual threads park on a blocked
 * socket, and the JDK multiplexes them over one carrier thread per core with a poller, without any
 * change to the clients' code. Measured on two cores (the {@code models} sweep preset,
 * docs/2-protocols-and-servers.md), that did not help: each reply still wakes its client, and a
 * virtual thread's wake-up (poller, then a hand-off to a carrier) costs more than the kernel waking
 * a platform thread. The switch stays so that the experiment can be repeated elsewhere.
 */
public enum ClientThreadKind {
    /** One platform (kernel) thread per client: the seed's design, and the default. */
    PLATFORM,
    /** One virtual thread per client. */
    VIRTUAL;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** A builder for one client's thread; the caller names it. */
    public Thread.Builder builder() {
        return switch (this) {
            case PLATFORM -> Thread.ofPlatform().daemon();
            case VIRTUAL -> Thread.ofVirtual();
        };
    }

    public static ClientThreadKind parse(String text) {
        for (ClientThreadKind kind : values()) {
            if (kind.cliName().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException(
                "unknown client thread kind '" + text + "': use platform or virtual");
    }
}
