package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;

/**
 * What the manifest and the compaction planner know of a table without opening it.
 *
 * @param number the file number ({@code 000012.sst})
 * @param bytes the file's size
 * @param smallest its first key
 * @param largest its last key
 * @param entries cells in it, tombstones included
 * @param maxSeq the largest sequence number in it
 * @param maxValue the length of its longest value
 * @param newKeys its puts of keys that no older table's bloom filter held when it was written: the
 *     keys it adds to the store, for the estimate of the store's key count ({@link KeyEstimate})
 * @param removedKeys its tombstones of keys that an older table's filter may hold: the keys it
 *     removes
 */
record TableMeta(
        long number,
        long bytes,
        ByteArrayWrapper smallest,
        ByteArrayWrapper largest,
        long entries,
        long maxSeq,
        int maxValue,
        long newKeys,
        long removedKeys) {

    /**
     * A table whose key counts are unknown (a version-1 table, a manifest's record of a table not
     * yet opened): every entry is counted as a new key, as if all were puts over nothing.
     */
    TableMeta(
            long number,
            long bytes,
            ByteArrayWrapper smallest,
            ByteArrayWrapper largest,
            long entries,
            long maxSeq,
            int maxValue) {
        this(number, bytes, smallest, largest, entries, maxSeq, maxValue, entries, 0);
    }

    /** The keys this table adds to the store, less those it removes; may be negative. */
    long keyDelta() {
        return newKeys - removedKeys;
    }

    /** True if some key in {@code [from, to]} (null: unbounded) may be in the table. */
    boolean overlaps(ByteArrayWrapper from, ByteArrayWrapper to) {
        return (from == null || largest.compareTo(from) >= 0)
                && (to == null || smallest.compareTo(to) <= 0);
    }
}
