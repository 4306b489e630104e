package dbf0.kv.storage.lsm;

import java.util.List;

/**
 * What an {@link LsmStore} has done since it opened, for reports and disk-bench: the raw counts
 * behind the three amplifications an LSM tree trades against each other.
 *
 * @param userBytesWritten key and value bytes of the puts and deletes the store accepted
 * @param walBytesWritten bytes written to the write-ahead logs
 * @param tableBytesWritten bytes written to sorted tables by flushes and compactions
 * @param gets gets answered
 * @param blocksRead data blocks read from disk (block cache misses)
 * @param blockCacheHits data blocks found in the block cache
 * @param stallNanos time writers spent slowed down or stopped, waiting for compaction
 * @param diskBytes bytes of every live file: tables, logs and the manifest
 * @param liveBytesEstimate key and value bytes of the newest version of every key, estimated
 * @param flushes memtables written to tables
 * @param compactions compactions finished
 * @param tablesPerLevel the number of tables on each level, level 0 first
 */
public record LsmStats(
        long userBytesWritten,
        long walBytesWritten,
        long tableBytesWritten,
        long gets,
        long blocksRead,
        long blockCacheHits,
        long stallNanos,
        long diskBytes,
        long liveBytesEstimate,
        long flushes,
        long compactions,
        List<Integer> tablesPerLevel) {

    /** Copies the list, so that the record stays immutable. */
    public LsmStats {
        tablesPerLevel = List.copyOf(tablesPerLevel);
    }

    /** Bytes written to disk per byte the user wrote; NaN before the first write. */
    public double writeAmplification() {
        return userBytesWritten == 0
                ? Double.NaN
                : (double) (walBytesWritten + tableBytesWritten) / userBytesWritten;
    }

    /** Data blocks read from disk per get; NaN before the first get. */
    public double readAmplification() {
        return gets == 0 ? Double.NaN : (double) blocksRead / gets;
    }

    /** Bytes on disk per byte of live data; NaN while there is none. */
    public double spaceAmplification() {
        return liveBytesEstimate == 0 ? Double.NaN : (double) diskBytes / liveBytesEstimate;
    }
}
