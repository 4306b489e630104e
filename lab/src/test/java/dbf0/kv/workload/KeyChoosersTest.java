package dbf0.kv.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Each key distribution against what it promises, by sampling with a fixed seed and comparing the
 * frequencies with bounds of about five standard deviations: a correct chooser passes with
 * overwhelming probability whatever the seed, and a wrong one (off by a factor, or the popular end
 * reversed) fails by far more than that.
 */
class KeyChoosersTest {

    private static final int SAMPLES = 200_000;

    /** Five binomial standard deviations around {@code p} for {@link #SAMPLES} draws. */
    private static double tolerance(double p) {
        return 5 * Math.sqrt(p * (1 - p) / SAMPLES);
    }

    private static long[] histogram(KeyChooser chooser, int keys, long seed) {
        Random random = new Random(seed);
        long[] counts = new long[keys];
        for (int i = 0; i < SAMPLES; i++) {
            long k = chooser.next(random);
            assertThat(k).isBetween(0L, keys - 1L);
            counts[(int) k]++;
        }
        return counts;
    }

    @Test
    void uniformPassesChiSquare() {
        int keys = 100;
        long[] counts = histogram(new UniformChooser(new KeySpace(keys)), keys, 1);
        double expected = (double) SAMPLES / keys;
        double chiSquare = 0;
        for (long c : counts) {
            chiSquare += (c - expected) * (c - expected) / expected;
        }
        // 99 degrees of freedom: P(chi-square > 148.2) = 0.001
        assertThat(chiSquare).isLessThan(148.2);
        // and a skewed chooser fails the same test by far: the test can fail
        long[] skewed = histogram(new ZipfianChooser(new KeySpace(keys), 0.5), keys, 1);
        double skewedChi = 0;
        for (long c : skewed) {
            skewedChi += (c - expected) * (c - expected) / expected;
        }
        assertThat(skewedChi).isGreaterThan(1000);
    }

    @Test
    void zipfianTopKeysHaveTheirExactShareForTheta099Over1000Keys() {
        double theta = 0.99;
        int keys = 1000;
        double zeta = 0;
        for (int i = 1; i <= keys; i++) {
            zeta += 1 / Math.pow(i, theta);
        }
        double p0 = 1 / zeta; // about 0.134
        double p1 = 1 / (Math.pow(2, theta) * zeta);
        assertThat(ZipfianChooser.topProbability(keys, theta))
                .isCloseTo(p0, org.assertj.core.data.Offset.offset(1e-12));
        long[] counts = histogram(new ZipfianChooser(new KeySpace(keys), theta), keys, 2);
        assertThat((double) counts[0] / SAMPLES).isBetween(p0 - tolerance(p0), p0 + tolerance(p0));
        assertThat((double) counts[1] / SAMPLES).isBetween(p1 - tolerance(p1), p1 + tolerance(p1));
        // the head is heavy and the tail is thin: the top 10 keys far outweigh the last 500
        long top10 = 0;
        long last500 = 0;
        for (int i = 0; i < keys; i++) {
            if (i < 10) {
                top10 += counts[i];
            } else if (i >= 500) {
                last500 += counts[i];
            }
        }
        assertThat(top10).isGreaterThan(3 * last500);
        assertThat(counts[keys - 1]).as("the least popular key is still chosen").isPositive();
    }

    @Test
    void zipfianFollowsAGrowingKeySpace() {
        KeySpace space = new KeySpace(10);
        ZipfianChooser chooser = new ZipfianChooser(space, 0.99);
        for (int i = 0; i < 990; i++) {
            space.claimInsert();
        }
        long[] counts = histogram(chooser, 1000, 3);
        double p0 = ZipfianChooser.topProbability(1000, 0.99); // not 1/zeta(10), about 0.34
        assertThat((double) counts[0] / SAMPLES).isBetween(p0 - tolerance(p0), p0 + tolerance(p0));
        assertThat(counts[999]).isPositive();
    }

    @Test
    void zipfianRejectsThetaOutsideZeroToOne() {
        assertThatThrownBy(() -> new ZipfianChooser(new KeySpace(10), 1.0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ZipfianChooser(new KeySpace(10), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void latestFavoursTheNewestInserts() {
        KeySpace space = new KeySpace(1000);
        LatestChooser chooser = new LatestChooser(space, 0.99);
        double p0 = ZipfianChooser.topProbability(1000, 0.99);
        long[] counts = histogram(chooser, 1000, 4);
        assertThat((double) counts[999] / SAMPLES)
                .isBetween(p0 - tolerance(p0), p0 + tolerance(p0));
        assertThat(counts[999]).isGreaterThan(100 * Math.max(1, counts[0]));
        // after 100 inserts the newest record is index 1099, and it takes the top share
        for (int i = 0; i < 100; i++) {
            space.claimInsert();
        }
        long[] after = histogram(chooser, 1100, 5);
        double q0 = ZipfianChooser.topProbability(1100, 0.99);
        assertThat((double) after[1099] / SAMPLES)
                .isBetween(q0 - tolerance(q0), q0 + tolerance(q0));
        assertThat(after[999])
                .as("the old newest is now a hundred back")
                .isLessThan(after[1099] / 20);
        long newestTenth = 0;
        for (int i = 990; i < 1100; i++) {
            newestTenth += after[i];
        }
        assertThat((double) newestTenth / SAMPLES).isGreaterThan(0.5);
    }

    @Test
    void hotspotSendsItsShareToTheHotSet() {
        int keys = 1000;
        long[] counts = histogram(new HotspotChooser(new KeySpace(keys), 0.2, 0.8), keys, 6);
        long hot = 0;
        for (int i = 0; i < 200; i++) {
            hot += counts[i];
        }
        assertThat((double) hot / SAMPLES).isBetween(0.8 - tolerance(0.8), 0.8 + tolerance(0.8));
        // within each set, uniform: one hot key gets about 0.8/200, one cold key about 0.2/800
        double hotKey = 0.8 / 200;
        double coldKey = 0.2 / 800;
        assertThat((double) counts[17] / SAMPLES)
                .isBetween(hotKey - tolerance(hotKey), hotKey + tolerance(hotKey));
        assertThat((double) counts[517] / SAMPLES)
                .isBetween(coldKey - tolerance(coldKey), coldKey + tolerance(coldKey));
    }

    @Test
    void exponentialPutsItsPercentileInTheNewestFraction() {
        int keys = 1000;
        long[] counts = histogram(new ExponentialChooser(new KeySpace(keys)), keys, 7);
        int newest = (int) (keys * ExponentialChooser.DEFAULT_FRACTION);
        long inNewest = 0;
        for (int i = keys - newest; i < keys; i++) {
            inNewest += counts[i];
        }
        // 95% of unbounded draws land in the newest 6/7; draws past the oldest record (about 3%)
        // are redrawn, which lifts the share to 0.95 / (1 - 0.05^(7/6))
        double p = 0.95 / (1 - Math.pow(0.05, 1 / ExponentialChooser.DEFAULT_FRACTION));
        assertThat((double) inNewest / SAMPLES).isBetween(p - tolerance(p), p + tolerance(p));
        assertThat(counts[keys - 1]).isGreaterThan(counts[0]);
    }

    @Test
    void distributionsByNameAndBadParameters() {
        for (String name : KeyDistribution.NAMES) {
            KeyChooser chooser = KeyDistribution.of(name).chooser(new KeySpace(50));
            assertThat(chooser.next(new Random(8))).isBetween(0L, 49L);
        }
        assertThatThrownBy(() -> KeyDistribution.of("gaussian"))
                .hasMessageContaining("uniform, zipfian");
        assertThatThrownBy(() -> new KeyDistribution("zipfian", 1.5, 0.2, 0.8))
                .hasMessageContaining("theta");
        assertThatThrownBy(() -> new KeyDistribution("hotspot", 0.99, 0, 0.8))
                .hasMessageContaining("hotspot fraction");
    }
}
