package dbf0.kv.storage.wal;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;

/**
 * The store's fixed bounds, which no command-line option sets. {@link #DEFAULTS} serves everywhere;
 * a test may give smaller or longer ones to reach a bound or stay clear of it.
 *
 * @param rewriteSideBufferBytes bytes of appends a rewrite copies while it runs; past them the
 *     rewrite is abandoned
 * @param lateFlush how long a record accepted under interval or never may wait for a flush before
 *     the writer thread's safety net writes it: every caller that waits flushes first, so this only
 *     turns a forgotten flush into latency instead of a hang
 */
public record WalLimits(long rewriteSideBufferBytes, Duration lateFlush) {

    public static final WalLimits DEFAULTS = new WalLimits(256L << 20, Duration.ofMillis(1));

    public WalLimits {
        checkArgument(
                rewriteSideBufferBytes > 0 && lateFlush.isPositive(),
                "limits must be positive: %s bytes, %s",
                rewriteSideBufferBytes,
                lateFlush);
    }

    public WalLimits withRewriteSideBufferBytes(long bytes) {
        return new WalLimits(bytes, lateFlush);
    }

    public WalLimits withLateFlush(Duration wait) {
        return new WalLimits(rewriteSideBufferBytes, wait);
    }
}
