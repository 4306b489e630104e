package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.util.ArrayList;
import java.util.List;

/**
 * Which tables to merge next, and into which level: the policy, kept apart from the merging.
 *
 * @param inputs the tables merged (all removed once the output is in place)
 * @param outputLevel where the output goes
 * @param dropTombstones true if no older data lies below the output: tombstones have nothing left
 *     to hide and can go
 * @param split true to split the output into tables of {@link LsmTuning#tableBytes} (one sorted run
 *     of many tables, leveled); false for one table per compaction (a tiered run)
 */
record CompactionPlan(List<Table> inputs, int outputLevel, boolean dropTombstones, boolean split) {

    /** A move without a merge: one table that overlaps nothing on the next level. */
    boolean trivialMove() {
        return inputs.size() == 1 && split;
    }

    /**
     * The next compaction the store needs, or null. Leveled, as LevelDB and RocksDB do: the level
     * with the highest score ({@link #neediest}) goes first. Level 0 goes whole into level 1 with
     * the tables it overlaps; a deeper level gives one table (the next after the last one it gave,
     * round robin over the key space) to the next level, with the tables it overlaps there. Tiered:
     * the first level holding {@link LsmTuning#tierRuns} runs merges them all into one run on the
     * next level.
     */
    static CompactionPlan pick(
            Version v, CompactionStyle style, LsmTuning t, ByteArrayWrapper[] cursor) {
        return style == CompactionStyle.TIERED ? tiered(v, t) : leveled(v, t, cursor);
    }

    private static CompactionPlan tiered(Version v, LsmTuning t) {
        for (int level = 0; level < Version.LEVELS - 1; level++) {
            if (v.level(level).size() >= t.tierRuns()) {
                return new CompactionPlan(
                        v.level(level), level + 1, emptyFrom(v, level + 1), false);
            }
        }
        return null;
    }

    private static CompactionPlan leveled(Version v, LsmTuning t, ByteArrayWrapper[] cursor) {
        int level = neediest(v, t);
        if (level < 0) {
            return null;
        }
        if (level == 0) {
            return into(v, v.level(0), 1);
        }
        List<Table> tables = v.level(level);
        Table pick = tables.get(0);
        for (Table table : tables) {
            if (cursor[level] == null || table.meta().smallest().compareTo(cursor[level]) > 0) {
                pick = table;
                break;
            }
        }
        cursor[level] = pick.meta().largest();
        return into(v, List.of(pick), level + 1);
    }

    /**
     * The level whose compaction is most overdue, or -1 if none is: the highest score of at least
     * 1, level 0 winning ties. Level 0 scores its tables over {@link LsmTuning#l0CompactionTrigger}
     * (each table is one more place a read must look); a deeper level its bytes over its target.
     * Serving level 0 whenever it is at its trigger would starve the levels below under sustained
     * writes: level 1 would grow without bound, and every level-0 compaction would rewrite all of
     * it.
     */
    static int neediest(Version v, LsmTuning t) {
        int best = -1;
        double bestScore = 1.0;
        for (int level = 0; level < Version.LEVELS - 1; level++) {
            double score = score(v, t, level);
            if (score > bestScore || (score == bestScore && best < 0)) {
                best = level;
                bestScore = score;
            }
        }
        return best;
    }

    /** Level {@code level}'s score: 1 or more means it is due for compaction. */
    static double score(Version v, LsmTuning t, int level) {
        if (level == 0) {
            return (double) v.level(0).size() / t.l0CompactionTrigger();
        }
        if (v.level(level).isEmpty() || !v.sortedRun(level)) {
            return 0;
        }
        return (double) v.levelBytes(level) / targetBytes(t, level);
    }

    /** Level {@code level}'s target size (past 0): the base times the multiplier per level. */
    static long targetBytes(LsmTuning t, int level) {
        long target = t.levelBaseBytes();
        for (int i = 1; i < level && target < Long.MAX_VALUE / t.levelMultiplier(); i++) {
            target *= t.levelMultiplier();
        }
        return target;
    }

    /** {@code from} with every table of {@code level} it overlaps. */
    private static CompactionPlan into(Version v, List<Table> from, int level) {
        ByteArrayWrapper lo = null;
        ByteArrayWrapper hi = null;
        for (Table table : from) {
            TableMeta m = table.meta();
            lo = lo == null || m.smallest().compareTo(lo) < 0 ? m.smallest() : lo;
            hi = hi == null || m.largest().compareTo(hi) > 0 ? m.largest() : hi;
        }
        List<Table> inputs = new ArrayList<>(from);
        for (Table table : v.level(level)) {
            if (table.meta().overlaps(lo, hi)) {
                inputs.add(table);
            }
        }
        return new CompactionPlan(inputs, level, emptyFrom(v, level + 1), true);
    }

    /** True if every level from {@code level} down is empty. */
    private static boolean emptyFrom(Version v, int level) {
        for (int i = level; i < Version.LEVELS; i++) {
            if (!v.level(i).isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
