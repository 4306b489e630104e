package dbf0.kv.workload;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Random;

/**
 * A hot set and a cold set (YCSB's {@code hotspot}): the first {@code hotFraction} of the records
 * receive {@code hotOpsFraction} of the operations, uniformly among themselves, and the rest share
 * what is left. YCSB's defaults are 0.2 and 0.8: a fifth of the keys take four fifths of the load.
 */
public final class HotspotChooser implements KeyChooser {

    public static final double DEFAULT_HOT_FRACTION = 0.2;
    public static final double DEFAULT_HOT_OPS_FRACTION = 0.8;

    private final KeySpace space;
    private final double hotFraction;
    private final double hotOpsFraction;

    public HotspotChooser(KeySpace space, double hotFraction, double hotOpsFraction) {
        checkArgument(
                hotFraction > 0 && hotFraction <= 1,
                "hotspot fraction must be in (0, 1], got %s",
                hotFraction);
        checkArgument(
                hotOpsFraction >= 0 && hotOpsFraction <= 1,
                "hotspot ops fraction must be in [0, 1], got %s",
                hotOpsFraction);
        this.space = space;
        this.hotFraction = hotFraction;
        this.hotOpsFraction = hotOpsFraction;
    }

    @Override
    public long next(Random random) {
        long count = space.count();
        // at least one hot key, and at most all of them: tiny key spaces still have a hot set
        long hot = Math.max(1, Math.min(count, (long) (count * hotFraction)));
        if (hot == count || random.nextDouble() < hotOpsFraction) {
            return random.nextLong(hot);
        }
        return hot + random.nextLong(count - hot);
    }
}
