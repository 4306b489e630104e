package dbf0.kv.storage.lsm;

/**
 * The LSM store's finer knobs, which no command-line flag sets: {@link #DEFAULTS} serves; tests and
 * experiments take others (a tiny table size to force compactions, the bloom filter off to measure
 * what it buys).
 *
 * @param l0CompactionTrigger level-0 tables that start a compaction
 * @param l0SlowdownTrigger level-0 tables past which each write is delayed a little
 * @param l0StopTrigger level-0 tables past which writes wait for compaction
 * @param tableBytes the size compaction splits its output tables at (leveled)
 * @param levelBaseBytes level 1's target size under leveled compaction; each deeper level is {@link
 *     #levelMultiplier} times the one above
 * @param levelMultiplier the growth from one level to the next
 * @param tierRuns runs a level collects before tiered compaction merges them into the next
 * @param readThreads threads that answer {@code getAsync} calls that must read the disk
 * @param bloomFilters whether reads consult the tables' bloom filters
 */
public record LsmTuning(
        int l0CompactionTrigger,
        int l0SlowdownTrigger,
        int l0StopTrigger,
        long tableBytes,
        long levelBaseBytes,
        int levelMultiplier,
        int tierRuns,
        int readThreads,
        boolean bloomFilters) {

    /** Level-0 triggers 4/12/20, 8 MiB tables, level 1 at 256 MiB, x10, 4 runs, 2 readers. */
    public static final LsmTuning DEFAULTS =
            new LsmTuning(4, 12, 20, 8L << 20, 256L << 20, 10, 4, 2, true);

    /** Checks that the triggers are in order and every size positive. */
    public LsmTuning {
        if (l0CompactionTrigger < 1
                || l0SlowdownTrigger < l0CompactionTrigger
                || l0StopTrigger < l0SlowdownTrigger) {
            throw new IllegalArgumentException(
                    "level-0 triggers must be 1 <= compaction <= slowdown <= stop, got "
                            + l0CompactionTrigger
                            + ", "
                            + l0SlowdownTrigger
                            + ", "
                            + l0StopTrigger);
        }
        if (tableBytes < 4096 || levelBaseBytes < tableBytes || levelMultiplier < 2) {
            throw new IllegalArgumentException("table and level sizes out of range");
        }
        if (tierRuns < 2 || readThreads < 1 || readThreads > 64) {
            throw new IllegalArgumentException("tier runs >= 2 and 1..64 read threads");
        }
    }

    /** The same with other level-0 triggers. */
    public LsmTuning withL0Triggers(int compaction, int slowdown, int stop) {
        return new LsmTuning(
                compaction,
                slowdown,
                stop,
                tableBytes,
                levelBaseBytes,
                levelMultiplier,
                tierRuns,
                readThreads,
                bloomFilters);
    }

    /** The same with other table and level sizes. */
    public LsmTuning withSizes(long table, long levelBase) {
        return new LsmTuning(
                l0CompactionTrigger,
                l0SlowdownTrigger,
                l0StopTrigger,
                table,
                levelBase,
                levelMultiplier,
                tierRuns,
                readThreads,
                bloomFilters);
    }

    /** The same with bloom filters consulted or not. */
    public LsmTuning withBloomFilters(boolean on) {
        return new LsmTuning(
                l0CompactionTrigger,
                l0SlowdownTrigger,
                l0StopTrigger,
                tableBytes,
                levelBaseBytes,
                levelMultiplier,
                tierRuns,
                readThreads,
                on);
    }
}
