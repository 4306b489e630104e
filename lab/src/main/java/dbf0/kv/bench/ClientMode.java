package dbf0.kv.bench;

import java.util.Locale;

/** How the benchmark's clients talk to the server. */
public enum ClientMode {
    /** The seed's: protocol v1, a new TCP connection for every operation. */
    PER_OP,
    /** Protocol v2 on one long-lived connection per client thread, one request at a time. */
    PERSISTENT,
    /** Protocol v2, up to {@code --pipeline} requests in flight per connection. */
    PIPELINED,
    /** Protocol v2, {@code --batch} operations per request frame. */
    BATCHED;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static ClientMode parse(String text) {
        for (ClientMode mode : values()) {
            if (mode.cliName().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "unknown client mode '" + text + "': use per-op, persistent, pipelined or batched");
    }
}
