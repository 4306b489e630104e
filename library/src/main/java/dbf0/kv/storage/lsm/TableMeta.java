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
 */
record TableMeta(
        long number,
        long bytes,
        ByteArrayWrapper smallest,
        ByteArrayWrapper largest,
        long entries,
        long maxSeq,
        int maxValue) {

    /** True if some key in {@code [from, to]} (null: unbounded) may be in the table. */
    boolean overlaps(ByteArrayWrapper from, ByteArrayWrapper to) {
        return (from == null || largest.compareTo(from) >= 0)
                && (to == null || smallest.compareTo(to) <= 0);
    }
}
