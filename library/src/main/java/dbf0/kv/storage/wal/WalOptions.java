package dbf0.kv.storage.wal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link WalStore} keeps its log.
 *
 * @param dataDir the directory holding the log ({@value WalStore#LOG_NAME}) and nothing else of
 *     ours
 * @param fsync when the log is forced to disk
 * @param fsyncInterval the period of the background force under {@link FsyncPolicy#INTERVAL}
 * @param recoverTruncate start even when a bad record sits in the middle of the log, dropping it
 *     and everything after it (the default refuses to start, so that nobody loses data unasked)
 * @param rewriteGrowth rewrite automatically once the log is this many times its size after the
 *     last rewrite (or after start-up); 0 turns automatic rewrites off
 * @param rewriteMinBytes never rewrite automatically below this size
 * @param commitWaitMicros under {@link FsyncPolicy#ALWAYS}, how long the log writer may wait for as
 *     many writes as its last commit had before it forces the next batch (0: never wait)
 */
public record WalOptions(
        Path dataDir,
        FsyncPolicy fsync,
        Duration fsyncInterval,
        boolean recoverTruncate,
        double rewriteGrowth,
        long rewriteMinBytes,
        long commitWaitMicros) {

    public static final Duration DEFAULT_FSYNC_INTERVAL = Duration.ofMillis(100);
    public static final double DEFAULT_REWRITE_GROWTH = 2.0;
    public static final long DEFAULT_REWRITE_MIN_BYTES = 64L << 20;

    /**
     * The default {@link #commitWaitMicros}: about the median fsync of the disk it was measured on.
     */
    public static final long DEFAULT_COMMIT_WAIT_MICROS = 200;

    /**
     * The largest {@link #commitWaitMicros}, a second: a wait delays acknowledgements, so keep it
     * short.
     */
    public static final long MAX_COMMIT_WAIT_MICROS = 1_000_000;

    public WalOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(fsyncInterval, "fsyncInterval");
        if (fsyncInterval.isNegative() || fsyncInterval.isZero()) {
            throw new IllegalArgumentException(
                    "fsync interval must be positive, got " + fsyncInterval);
        }
        if (rewriteGrowth != 0 && !(rewriteGrowth > 1.0)) {
            throw new IllegalArgumentException(
                    "rewrite growth must be above 1 (or 0 for off), got " + rewriteGrowth);
        }
        if (rewriteMinBytes < 0) {
            throw new IllegalArgumentException(
                    "rewrite minimum size must not be negative, got " + rewriteMinBytes);
        }
        if (commitWaitMicros < 0 || commitWaitMicros > MAX_COMMIT_WAIT_MICROS) {
            throw new IllegalArgumentException(
                    "commit wait must be 0.."
                            + MAX_COMMIT_WAIT_MICROS
                            + " microseconds, got "
                            + commitWaitMicros);
        }
    }

    /** The defaults for {@code dataDir}: fsync always, rewrite at 2x past 64 MiB. */
    public static WalOptions defaults(Path dataDir) {
        return new WalOptions(
                dataDir,
                FsyncPolicy.ALWAYS,
                DEFAULT_FSYNC_INTERVAL,
                false,
                DEFAULT_REWRITE_GROWTH,
                DEFAULT_REWRITE_MIN_BYTES,
                DEFAULT_COMMIT_WAIT_MICROS);
    }

    public WalOptions withFsync(FsyncPolicy p) {
        return new WalOptions(
                dataDir,
                p,
                fsyncInterval,
                recoverTruncate,
                rewriteGrowth,
                rewriteMinBytes,
                commitWaitMicros);
    }

    public WalOptions withFsyncInterval(Duration d) {
        return new WalOptions(
                dataDir,
                fsync,
                d,
                recoverTruncate,
                rewriteGrowth,
                rewriteMinBytes,
                commitWaitMicros);
    }

    public WalOptions withRecoverTruncate(boolean on) {
        return new WalOptions(
                dataDir,
                fsync,
                fsyncInterval,
                on,
                rewriteGrowth,
                rewriteMinBytes,
                commitWaitMicros);
    }

    /** The same options with another {@link #commitWaitMicros}. */
    public WalOptions withCommitWait(long micros) {
        return new WalOptions(
                dataDir,
                fsync,
                fsyncInterval,
                recoverTruncate,
                rewriteGrowth,
                rewriteMinBytes,
                micros);
    }

    public WalOptions withRewrite(double growth, long minBytes) {
        return new WalOptions(
                dataDir, fsync, fsyncInterval, recoverTruncate, growth, minBytes, commitWaitMicros);
    }
}
