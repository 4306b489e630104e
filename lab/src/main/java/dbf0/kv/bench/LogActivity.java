package dbf0.kv.bench;

import com.google.gson.JsonObject;
import dbf0.kv.storage.wal.WalStats;

/**
 * What the server's write-ahead log did during a benchmark's measured interval: the difference
 * between its counters at the end of the warm-up and after the clients stopped. The log's own
 * totals also count the warm-up (and the load phase), which would overstate a short run's fsyncs
 * and blur its group-commit size.
 *
 * @param policy the fsync policy's command-line name (always, interval, never)
 * @param records records appended in the interval
 * @param fsyncs forces of the log in the interval
 * @param recordsForced records those forces made durable
 */
public record LogActivity(String policy, long records, long fsyncs, long recordsForced) {

    /** The activity between two snapshots of one log's counters. */
    public static LogActivity between(WalStats before, WalStats after) {
        return new LogActivity(
                after.policy().cliName(),
                after.recordsWritten() - before.recordsWritten(),
                after.fsyncs() - before.fsyncs(),
                after.recordsForced() - before.recordsForced());
    }

    /** Records made durable per force: group commit's measure; 0 when nothing was forced. */
    public double recordsPerFsync() {
        return fsyncs == 0 ? 0 : (double) recordsForced / fsyncs;
    }

    /**
     * Adds the figures to a benchmark's JSON: {@code fsync}, {@code wal_records}, {@code
     * wal_fsyncs}, {@code wal_records_forced}, {@code wal_fsyncs_per_sec} and {@code
     * wal_records_per_fsync} (null when nothing was forced, as under never: there is no group to
     * measure).
     */
    void addTo(JsonObject json, double seconds) {
        json.addProperty("fsync", policy);
        json.addProperty("wal_records", records);
        json.addProperty("wal_fsyncs", fsyncs);
        json.addProperty("wal_records_forced", recordsForced);
        json.addProperty("wal_fsyncs_per_sec", Math.round(fsyncs / seconds * 10) / 10.0);
        if (fsyncs == 0) {
            json.add("wal_records_per_fsync", com.google.gson.JsonNull.INSTANCE);
        } else {
            json.addProperty("wal_records_per_fsync", Math.round(recordsPerFsync() * 100) / 100.0);
        }
    }
}
