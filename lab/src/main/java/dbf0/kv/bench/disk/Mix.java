package dbf0.kv.bench.disk;

/**
 * What the benchmark threads do: the 2020 project's four mixes of puts, deletes and gets, and four
 * of RocksDB's db_bench benchmarks under their db_bench names.
 *
 * <p>The 2020 mixes draw every key uniformly, except that a get or delete takes a recently put key
 * with probability knownKeyRate. The db_bench presets ignore knownKeyRate: {@code fillseq} puts
 * keys in ascending order (from 0 again after the last) (a flush then writes tables that do not
 * overlap, so compaction only moves them), {@code fillrandom} puts random keys, {@code overwrite}
 * and {@code readrandom} first fill the whole key space in order (not measured) and then put, or
 * get, random keys.
 *
 * @param name the name on the command line and in the JSON line
 * @param putPercent percent of operations that are puts
 * @param deletePercent percent that are deletes; the rest are gets
 * @param sequential whether puts take keys in ascending order instead of at random
 * @param preload whether the whole key space is written before the measured run
 * @param usesKnownKeys whether gets and deletes follow knownKeyRate (the 2020 mixes)
 */
public record Mix(
        String name,
        int putPercent,
        int deletePercent,
        boolean sequential,
        boolean preload,
        boolean usesKnownKeys) {

    /** The 2020 mixes, put/delete/get in percent, and the db_bench presets. */
    public static final Mix[] ALL = {
        new Mix("PUT_HEAVY", 90, 5, false, false, true),
        new Mix("GET_HEAVY", 10, 5, false, false, true),
        new Mix("DELETE_HEAVY", 45, 45, false, false, true),
        new Mix("BALANCED", 33, 33, false, false, true),
        new Mix("fillseq", 100, 0, true, false, false),
        new Mix("fillrandom", 100, 0, false, false, false),
        new Mix("overwrite", 100, 0, false, true, false),
        new Mix("readrandom", 0, 0, false, true, false),
    };

    /** Percent of operations that are gets. */
    public int getPercent() {
        return 100 - putPercent - deletePercent;
    }

    /** The mix named {@code text}: a 2020 name in any case, or a db_bench name in any case. */
    public static Mix parse(String text) {
        for (Mix m : ALL) {
            if (m.name.equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        StringBuilder names = new StringBuilder();
        for (Mix m : ALL) {
            names.append(names.isEmpty() ? "" : ", ").append(m.name);
        }
        throw new IllegalArgumentException("unknown mix '" + text + "': use one of " + names);
    }

    @Override
    public String toString() {
        return name;
    }
}
