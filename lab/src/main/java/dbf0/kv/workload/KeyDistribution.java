package dbf0.kv.workload;

import java.util.Locale;

/**
 * How a keyed workload picks its records, by name, with the parameters the skewed ones take. Each
 * name makes one {@link KeyChooser} per load thread over a shared {@link KeySpace}.
 *
 * @param name uniform, zipfian, hotspot, latest or exponential
 * @param zipfTheta skew of zipfian and latest, in (0, 1); YCSB's default 0.99
 * @param hotspotFraction hotspot: the share of the records that are hot
 * @param hotspotOpsFraction hotspot: the share of the operations that go to them
 */
public record KeyDistribution(
        String name, double zipfTheta, double hotspotFraction, double hotspotOpsFraction) {

    /** The accepted names, in the order --help lists them. */
    public static final java.util.List<String> NAMES =
            java.util.List.of("uniform", "zipfian", "hotspot", "latest", "exponential");

    public KeyDistribution {
        name = name.toLowerCase(Locale.ROOT);
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException(
                    "key distribution must be one of "
                            + String.join(", ", NAMES)
                            + ", got '"
                            + name
                            + "'");
        }
        // build one chooser now, so that bad parameters fail at the command line, not in a load
        // thread
        create(name, new KeySpace(1), zipfTheta, hotspotFraction, hotspotOpsFraction);
    }

    /** The named distribution with YCSB's default parameters. */
    public static KeyDistribution of(String name) {
        return new KeyDistribution(
                name,
                ZipfianChooser.DEFAULT_THETA,
                HotspotChooser.DEFAULT_HOT_FRACTION,
                HotspotChooser.DEFAULT_HOT_OPS_FRACTION);
    }

    /** A new chooser over {@code space}, for one load thread. */
    public KeyChooser chooser(KeySpace space) {
        return create(name, space, zipfTheta, hotspotFraction, hotspotOpsFraction);
    }

    private static KeyChooser create(
            String name, KeySpace space, double theta, double hot, double hotOps) {
        return switch (name) {
            case "uniform" -> new UniformChooser(space);
            case "zipfian" -> new ZipfianChooser(space, theta);
            case "hotspot" -> new HotspotChooser(space, hot, hotOps);
            case "latest" -> new LatestChooser(space, theta);
            case "exponential" -> new ExponentialChooser(space);
            default ->
                    throw new IllegalArgumentException("unknown key distribution '" + name + "'");
        };
    }
}
