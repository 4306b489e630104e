package dbf0.base.client;

import org.HdrHistogram.Histogram;

/**
 * Operation latencies of one connector, in microseconds, in an HdrHistogram (3 significant digits,
 * up to 60 s). Single writer: each connector has its own, and {@link BaseClient} adds them up after
 * the threads have stopped.
 *
 * <p>Only operations that start after {@link #measureFrom} count, so that a warm-up can run without
 * polluting the figures.
 */
public final class LatencyRecorder {

    private static final long MAX_MICROS = 60_000_000L;

    private final Histogram histogram = new Histogram(MAX_MICROS, 3);
    private volatile long measureFromNanos = Long.MIN_VALUE;

    /** Operations that start before {@code nanos} (a System.nanoTime value) are not recorded. */
    public void measureFrom(long nanos) {
        measureFromNanos = nanos;
    }

    /** Whether an operation that started at {@code startNanos} is in the measured interval. */
    public boolean counts(long startNanos) {
        return startNanos >= measureFromNanos;
    }

    /** Records an operation that took from {@code startNanos} to {@code endNanos}. */
    public void record(long startNanos, long endNanos) {
        histogram.recordValue(Math.min(MAX_MICROS, Math.max(0, (endNanos - startNanos) / 1_000)));
    }

    /** Records {@code count} operations that all took {@code startNanos} to {@code endNanos}. */
    public void record(long startNanos, long endNanos, int count) {
        histogram.recordValueWithCount(
                Math.min(MAX_MICROS, Math.max(0, (endNanos - startNanos) / 1_000)), count);
    }

    public Histogram histogram() {
        return histogram;
    }
}
