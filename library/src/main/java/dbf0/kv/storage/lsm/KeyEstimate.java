package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.util.List;

/**
 * How many keys the store holds, in O(1) rather than a merge of every table: what DBSIZE and INFO's
 * keyspace line answer, which monitoring asks every second. An estimate, as RocksDB's {@code
 * rocksdb.estimate-num-keys} is, but one that counts a key once however many versions of it lie
 * about.
 *
 * <p>Each source (a memtable, a table) carries the keys it adds to the store less those it removes,
 * counted when it is written from what the older sources hold of each of its keys, the newest of
 * their cells ({@link Below}): a put counts 1 unless that cell is a put (then it replaces a value),
 * a tombstone -1 if that cell is a put (it removes the key) and 0 otherwise (the DEL of a missing
 * key). Summed over every source, each key counts 1 if its newest cell is a put and 0 otherwise:
 * the true count. A compaction keeps the sum: it keeps each key's newest cell and counts its output
 * afresh against what lies below; a tombstone it drops at the bottom had counted 0 and leaves the
 * cells above it counting the same. The sum over the tables is kept per {@link Version}.
 *
 * <p>What the older sources hold is asked in memory, never of the disk: a memtable by a lookup, a
 * table by its bloom filter of every key and then its filter of its tombstones' keys. The memtable
 * taking writes asks on the write path, a table as a flush or compaction writes it (its counts are
 * in its footer). So the estimate errs only where a filter errs: a false positive (about 1% per
 * table asked) takes an absent key for a present one, or a put for a tombstone.
 *
 * <p>RocksDB's estimate, its puts less its deletes over every source, asks nothing, and counts
 * every version of a key until compaction merges them, and a DEL of a missing key as a removal.
 */
final class KeyEstimate {

    private KeyEstimate() {}

    /** What sources older than a cell hold of its key: the kind of the newest of their cells. */
    enum Below {
        NOTHING,
        PUT,
        TOMBSTONE
    }

    /** What a key's newest cell in a source adds to the store's count: 1, 0 or -1. */
    static int counted(Cell cell, Below below) {
        if (cell.isTombstone()) {
            return below == Below.PUT ? -1 : 0;
        }
        return below == Below.PUT ? 0 : 1;
    }

    /** The estimate over {@code s}, where cells below {@code floor} are gone (a clear). */
    static long of(LsmState s, long floor) {
        long keys = s.version().keyDelta(floor) + visible(s.active(), floor);
        if (s.immutable() != null) {
            keys += visible(s.immutable(), floor);
        }
        return Math.max(0, keys);
    }

    private static long visible(Memtable memtable, long floor) {
        return memtable.maxSeq() >= floor ? memtable.keyDelta() : 0;
    }

    /**
     * The write path's question: what the sources older than the active memtable (the memtable
     * being flushed, the tables) hold of {@code key}. In memory: a lookup, then bloom filters.
     *
     * @param hash the key's {@link Bloom#hash}
     */
    static Below below(LsmState s, long floor, ByteArrayWrapper key, long hash) {
        Memtable flushing = s.immutable();
        if (flushing != null && flushing.maxSeq() >= floor) {
            Cell cell = flushing.get(key, hash);
            if (cell != null && cell.seq() >= floor) {
                return cell.isTombstone() ? Below.TOMBSTONE : Below.PUT;
            }
        }
        return inTables(s.version(), 0, floor, key, hash);
    }

    /**
     * What a table written into {@code level} asks of the tables older than it: those of {@code
     * level} and below, less {@code replaced} (a compaction's inputs, which the new table
     * replaces), as they are when it starts. Only a flush adds tables, at level 0, and only the one
     * compaction at a time changes the deeper levels; what a compaction does meanwhile to the
     * tables a flush asks only merges the cells they hold, and their filters stay in memory while
     * they are asked.
     */
    static TableWriter.Older olderThan(LsmCore core, int level, List<Table> replaced) {
        Version older = core.state.version().with(replaced, level, List.of());
        return (key, hash) -> inTables(older, level, core.clearSeq, key, hash);
    }

    /** The kind of the key's cell in the newest table that may hold it, in read order. */
    private static Below inTables(
            Version v, int from, long floor, ByteArrayWrapper key, long hash) {
        for (int level = from; level < Version.LEVELS; level++) {
            List<Table> tables = v.level(level);
            if (v.sortedRun(level)) {
                Table t = ReadPath.covering(tables, key);
                if (t != null && mayHold(t, floor, key, hash)) {
                    return kind(t, hash);
                }
                continue;
            }
            for (Table t : tables) { // newest first
                if (mayHold(t, floor, key, hash)) {
                    return kind(t, hash);
                }
            }
        }
        return Below.NOTHING;
    }

    private static boolean mayHold(Table t, long floor, ByteArrayWrapper key, long hash) {
        return t.meta().maxSeq() >= floor
                && t.meta().overlaps(key, key)
                && t.mightContainHash(hash);
    }

    private static Below kind(Table t, long hash) {
        return t.mayBeTombstone(hash) ? Below.TOMBSTONE : Below.PUT;
    }
}
