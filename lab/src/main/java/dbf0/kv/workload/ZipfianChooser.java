package dbf0.kv.workload;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Random;

/**
 * Zipfian popularity over the existing records: index 0 is the most popular, index {@code i} is
 * chosen with probability close to {@code 1 / ((i+1)^theta * zeta(n))}. The sampling method is the
 * one of Gray et al., "Quickly generating billion-record synthetic databases" (SIGMOD 1994), which
 * YCSB also uses: one uniform draw, no table, exact for the two most popular items and a close
 * approximation for the rest.
 *
 * <p>The normalising constant {@code zeta(n) = sum 1/i^theta, i = 1..n} costs n powers to compute.
 * The key space grows as the run inserts, so zeta is kept per instance and extended by the new
 * terms only, rather than recomputed; this is why an instance belongs to one thread.
 *
 * <p>Popular records are the first loaded. They are not scrambled over the key space as YCSB's
 * {@code ScrambledZipfianGenerator} does: that matters to a sorted or range-partitioned store, and
 * dbf0's maps place keys by a hash that already spreads neighbouring indexes apart.
 */
public final class ZipfianChooser implements KeyChooser {

    /** YCSB's default skew. */
    public static final double DEFAULT_THETA = 0.99;

    private final KeySpace space;
    private final double theta;
    private final double alpha;
    private final double zeta2;
    private long n;
    private double zetaN;
    private double eta;

    public ZipfianChooser(KeySpace space, double theta) {
        // Gray et al.'s formula divides by (1 - theta); theta = 1 is the harmonic case it leaves
        // out
        checkArgument(theta > 0 && theta < 1, "zipfian theta must be in (0, 1), got %s", theta);
        this.space = space;
        this.theta = theta;
        this.alpha = 1 / (1 - theta);
        this.zeta2 = 1 + Math.pow(0.5, theta);
        grow(space.count());
    }

    @Override
    public long next(Random random) {
        return nextBelow(random, space.count());
    }

    /**
     * A Zipfian rank in {@code [0, count)}: 0 most often. {@code count} may only grow between
     * calls.
     */
    long nextBelow(Random random, long count) {
        if (count != n) {
            grow(count);
        }
        double u = random.nextDouble();
        double uz = u * zetaN;
        if (uz < 1) {
            return 0;
        }
        if (uz < zeta2) {
            return 1;
        }
        long rank = (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(
                rank, n - 1); // the approximation can land on n when u is within rounding of 1
    }

    /** The exact probability of rank 0 for {@code count} items, for tests and docs. */
    public static double topProbability(long count, double theta) {
        return 1 / zeta(0, 0, count, theta);
    }

    private void grow(long count) {
        if (count < n) {
            zetaN =
                    zeta(
                            0, 0, count,
                            theta); // never happens in a run (records only grow); kept correct
            // anyway
        } else {
            zetaN = zeta(n, zetaN, count, theta);
        }
        n = count;
        eta = n <= 2 ? 0 : (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetaN);
    }

    /** zeta(to) from zeta(from) = {@code partial}: adds the terms from+1..to. */
    private static double zeta(long from, double partial, long to, double theta) {
        double sum = partial;
        for (long i = from + 1; i <= to; i++) {
            sum += 1 / Math.pow(i, theta);
        }
        return sum;
    }
}
