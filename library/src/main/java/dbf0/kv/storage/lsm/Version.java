package dbf0.kv.storage.lsm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The tables of the store at one moment, level by level: immutable, swapped whole when a flush or
 * compaction finishes, so a reader that took one sees a consistent set for as long as it reads.
 * Level 0 holds flushed memtables, newest first, whose key ranges overlap. Under {@link
 * CompactionStyle#LEVELED} each deeper level is one sorted run of tables ordered by key, without
 * overlaps; under {@link CompactionStyle#TIERED} each level holds whole runs, newest first.
 */
final class Version {

    /** The number of levels a store has: enough for a petabyte at ten times per level. */
    static final int LEVELS = 7;

    private final List<List<Table>> levels;
    private final boolean[] sorted;

    /** The sum of the tables' {@link TableMeta#keyDelta()}, and their smallest largest seq. */
    private final long keyDelta;

    private final long oldestMaxSeq;

    Version(List<List<Table>> levels) {
        List<List<Table>> copy = new ArrayList<>();
        for (List<Table> level : levels) {
            copy.add(List.copyOf(level));
        }
        this.levels = List.copyOf(copy);
        this.sorted = new boolean[levels.size()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = i > 0 && inKeyOrder(this.levels.get(i));
        }
        long delta = 0;
        long oldest = Long.MAX_VALUE;
        for (List<Table> level : this.levels) {
            for (Table t : level) {
                delta += t.meta().keyDelta();
                oldest = Math.min(oldest, t.meta().maxSeq());
            }
        }
        this.keyDelta = delta;
        this.oldestMaxSeq = oldest;
    }

    /**
     * The keys the tables add to the store less those they remove ({@link KeyEstimate}), those
     * whose every cell is older than {@code floor} (a clear) left out: O(1) unless a clear is
     * waiting for its flush to remove such tables.
     */
    long keyDelta(long floor) {
        if (floor <= oldestMaxSeq) {
            return keyDelta;
        }
        long delta = 0;
        for (List<Table> level : levels) {
            for (Table t : level) {
                delta += t.meta().maxSeq() >= floor ? t.meta().keyDelta() : 0;
            }
        }
        return delta;
    }

    List<List<Table>> levels() {
        return levels;
    }

    static Version empty() {
        List<List<Table>> levels = new ArrayList<>();
        for (int i = 0; i < LEVELS; i++) {
            levels.add(List.of());
        }
        return new Version(levels);
    }

    List<Table> level(int level) {
        return levels.get(level);
    }

    /**
     * This version with {@code removed} gone and {@code added} put at {@code level}. A level past 0
     * whose tables do not overlap is kept in key order (one sorted run, searched by binary search);
     * otherwise newest first, as level 0 always is.
     */
    Version with(List<Table> removed, int level, List<Table> added) {
        List<List<Table>> next = new ArrayList<>();
        for (int i = 0; i < LEVELS; i++) {
            List<Table> tables = new ArrayList<>(levels.get(i));
            tables.removeAll(removed);
            if (i == level) {
                tables.addAll(added);
                order(i, tables);
            }
            next.add(tables);
        }
        return new Version(next);
    }

    /** Puts a level's tables in the order {@link #with} promises. */
    static void order(int level, List<Table> tables) {
        tables.sort(Comparator.comparing(t -> t.meta().smallest()));
        if (level == 0 || !disjoint(tables)) {
            tables.sort(Comparator.comparingLong(Table::number).reversed());
        }
    }

    /** True if the tables, in key order, do not overlap. */
    static boolean disjoint(List<Table> byKey) {
        for (int i = 1; i < byKey.size(); i++) {
            if (byKey.get(i - 1).meta().largest().compareTo(byKey.get(i).meta().smallest()) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** True if level {@code level} (past 0) is one sorted run kept in key order. */
    boolean sortedRun(int level) {
        return sorted[level];
    }

    private static boolean inKeyOrder(List<Table> tables) {
        for (int i = 1; i < tables.size(); i++) {
            if (tables.get(i - 1).meta().largest().compareTo(tables.get(i).meta().smallest())
                    >= 0) {
                return false;
            }
        }
        return true;
    }

    long levelBytes(int level) {
        long bytes = 0;
        for (Table t : levels.get(level)) {
            bytes += t.meta().bytes();
        }
        return bytes;
    }

    List<Integer> counts() {
        List<Integer> counts = new ArrayList<>();
        for (List<Table> level : levels) {
            counts.add(level.size());
        }
        return counts;
    }

    List<Table> all() {
        List<Table> all = new ArrayList<>();
        levels.forEach(all::addAll);
        return all;
    }
}
