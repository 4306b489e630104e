package dbf0.kv.workload;

import java.util.Random;

/**
 * Recent records most popular (YCSB's {@code latest}, workload D's "read what was just posted"): a
 * Zipfian rank counted back from the newest index, so the last insert is the most likely pick and
 * popularity follows the inserts as they come.
 */
public final class LatestChooser implements KeyChooser {

    private final KeySpace space;
    private final ZipfianChooser ranks;

    public LatestChooser(KeySpace space, double theta) {
        this.space = space;
        this.ranks = new ZipfianChooser(space, theta);
    }

    @Override
    public long next(Random random) {
        long count = space.count();
        return count - 1 - ranks.nextBelow(random, count);
    }
}
