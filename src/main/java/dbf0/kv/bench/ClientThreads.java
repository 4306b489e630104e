package dbf0.kv.bench;

import java.util.Locale;

/**
 * What each load-generating client of the benchmark runs on.
 *
 * <p>Every client blocks on its own socket. With platform threads, 1,000 clients are 1,000 kernel
 * threads that the scheduler switches between on the same cores as the server, so a run with
 * many connections measures that switching as much as the server. Virtual threads park on a
 * blocked socket and the JDK multiplexes them over one carrier thread per core with a poller,
 * which is what a client built on a selector would do, without changing the clients' code.
 */
public enum ClientThreads {
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

  public static ClientThreads parse(String text) {
    for (ClientThreads kind : values()) {
      if (kind.cliName().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return kind;
      }
    }
    throw new IllegalArgumentException("unknown client thread kind '" + text + "': use platform or virtual");
  }
}
