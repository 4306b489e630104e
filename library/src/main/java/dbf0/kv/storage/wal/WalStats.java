package dbf0.kv.storage.wal;

/**
 * A {@link WalStore}'s figures, for RESP INFO's persistence section and for reports.
 *
 * @param policy the fsync policy
 * @param logBytes the log's size now
 * @param baseBytes its size after the last rewrite, or at start-up if none since
 * @param recordsWritten records appended since start-up
 * @param fsyncs forces of the log since start-up (group commits under always, ticks under interval)
 * @param recordsForced records those forces made durable; divided by {@code fsyncs}, the
 *     group-commit size
 * @param lastFsyncEpochMillis when the last force returned, or 0
 * @param rewrites rewrites finished since start-up
 * @param rewriteInProgress whether one runs now
 * @param lastRewriteEpochMillis when the last rewrite finished or failed, or 0
 * @param lastRewriteStatus ok, failed: why, or none
 * @param failure why writes are refused, or null while they are taken
 */
public record WalStats(
        FsyncPolicy policy,
        long logBytes,
        long baseBytes,
        long recordsWritten,
        long fsyncs,
        long recordsForced,
        long lastFsyncEpochMillis,
        long rewrites,
        boolean rewriteInProgress,
        long lastRewriteEpochMillis,
        String lastRewriteStatus,
        String failure) {

    /** Records made durable per force, the measure of group commit; 0 before the first force. */
    public double recordsPerFsync() {
        return fsyncs == 0 ? 0 : (double) recordsForced / fsyncs;
    }
}
