package dbf0.kv.workload;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Random;

/**
 * Recent records most popular, with an exponentially decaying tail (YCSB's {@code exponential}):
 * the distance back from the newest index is exponentially distributed, scaled so that {@code
 * percentile}% of draws fall within the newest {@code fraction} of the records. YCSB's defaults,
 * kept here, are 95% and 0.8571428571 (six sevenths). A draw further back than the oldest record is
 * drawn again, as YCSB's core workload does.
 */
public final class ExponentialChooser implements KeyChooser {

    public static final double DEFAULT_PERCENTILE = 95;
    public static final double DEFAULT_FRACTION = 0.8571428571;

    private final KeySpace space;
    private final double percentile;
    private final double fraction;

    public ExponentialChooser(KeySpace space) {
        this(space, DEFAULT_PERCENTILE, DEFAULT_FRACTION);
    }

    public ExponentialChooser(KeySpace space, double percentile, double fraction) {
        checkArgument(
                percentile > 0 && percentile < 100 && fraction > 0 && fraction <= 1,
                "exponential wants percentile in (0, 100) and fraction in (0, 1], got %s and %s",
                percentile,
                fraction);
        this.space = space;
        this.percentile = percentile;
        this.fraction = fraction;
    }

    @Override
    public long next(Random random) {
        long count = space.count();
        // rate such that P(distance < fraction * count) = percentile / 100
        double gamma = -Math.log(1 - percentile / 100) / (fraction * count);
        while (true) {
            double distance = -Math.log(1 - random.nextDouble()) / gamma; // 1 - u: never log(0)
            if (distance < count) {
                return count - 1 - (long) distance;
            }
        }
    }
}
