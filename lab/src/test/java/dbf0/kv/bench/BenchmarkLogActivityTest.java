package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.WalStats;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What bench's JSON says about the write-ahead log: the measured interval's fsyncs and group
 * commits.
 */
@Timeout(60)
class BenchmarkLogActivityTest {

    private static final int CLIENTS = 4;

    private static WalStats stats(long records, long fsyncs, long forced) {
        return new WalStats(
                FsyncPolicy.ALWAYS, 0, 0, records, fsyncs, forced, 0, 0, false, 0, "none", null);
    }

    @Test
    void activityIsTheDifferenceOfTwoSnapshots() {
        LogActivity a = LogActivity.between(stats(100, 10, 90), stats(400, 40, 390));
        assertThat(a).isEqualTo(new LogActivity("always", 300, 30, 300));
        assertThat(a.recordsPerFsync()).isEqualTo(10.0);
        assertThat(LogActivity.between(stats(5, 0, 0), stats(9, 0, 0)).recordsPerFsync())
                .as("no force, no group to measure")
                .isZero();
    }

    @Test
    void jsonCarriesTheIntervalsFigures() {
        JsonObject json = new JsonObject();
        new LogActivity("always", 300, 30, 290).addTo(json, 2.0);
        assertThat(json.get("fsync").getAsString()).isEqualTo("always");
        assertThat(json.get("wal_records").getAsLong()).isEqualTo(300);
        assertThat(json.get("wal_fsyncs").getAsLong()).isEqualTo(30);
        assertThat(json.get("wal_records_forced").getAsLong()).isEqualTo(290);
        assertThat(json.get("wal_fsyncs_per_sec").getAsDouble()).isEqualTo(15.0);
        assertThat(json.get("wal_records_per_fsync").getAsDouble()).isEqualTo(9.67);

        JsonObject never = new JsonObject();
        new LogActivity("never", 300, 0, 0).addTo(never, 2.0);
        assertThat(never.get("wal_records_per_fsync").isJsonNull()).isTrue();
        assertThat(never.get("wal_fsyncs_per_sec").getAsDouble()).isZero();
    }

    private static JsonObject bench(String... args) {
        BenchmarkCliTest.Run run = BenchmarkCliTest.run(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("errors").getAsLong()).as(run.err()).isZero();
        return json;
    }

    @Tag("slow") // timed benchmark runs of about 1.5 s each
    @Test
    void neitherTheCountsNorTheLogFiguresIncludeTheWarmUp(@TempDir Path dir) {
        // A warm-up of writes: counted on either side, it would make the SETs and the records
        // disagree by the warm-up's writes (bench once counted them in "set", 4,229 SETs against
        // 3,517 records).
        JsonObject json =
                bench(
                        "1",
                        String.valueOf(CLIENTS),
                        "concurrent",
                        "16",
                        "64",
                        "1",
                        "PT1S",
                        "--warmup",
                        "500ms",
                        "--client-mode",
                        "persistent",
                        "--server-model",
                        "virtual",
                        "--data-dir",
                        dir.toString(),
                        "--fsync",
                        "always");
        long sets = json.get("set").getAsLong();
        long records = json.get("wal_records").getAsLong();
        long fsyncs = json.get("wal_fsyncs").getAsLong();
        assertThat(json.get("fsync").getAsString()).isEqualTo("always");
        assertThat(sets).isPositive();
        // Each client has one write in flight at most at either edge of the interval; and the two
        // edges are not one instant: between reading the log's counters and starting the clients'
        // clock the main thread can be descheduled (11 writes once, on a loaded machine) while the
        // clients go on. 1% of the SETs covers that and still catches a counted warm-up (20%).
        assertThat(records).isCloseTo(sets, within(2L * CLIENTS + sets / 100));
        assertThat(fsyncs).isPositive().isLessThanOrEqualTo(records);
        assertThat(json.get("wal_records_per_fsync").getAsDouble())
                .isCloseTo(
                        (double) json.get("wal_records_forced").getAsLong() / fsyncs, within(0.01))
                .isGreaterThanOrEqualTo(1.0);
        // the JSON's seconds are rounded to the millisecond, the rate is computed before rounding
        assertThat(json.get("wal_fsyncs_per_sec").getAsDouble())
                .isCloseTo(fsyncs / json.get("seconds").getAsDouble(), withinPercentage(1));
    }

    @Tag("slow") // timed benchmark runs of about 1 s each
    @Test
    void neverForcesNothingAndNoLogAddsNothing(@TempDir Path dir) {
        JsonObject never =
                bench(
                        "1",
                        "2",
                        "concurrent",
                        "16",
                        "64",
                        "0.9",
                        "PT1S",
                        "--client-mode",
                        "persistent",
                        "--data-dir",
                        dir.toString(),
                        "--fsync",
                        "never");
        assertThat(never.get("fsync").getAsString()).isEqualTo("never");
        assertThat(never.get("wal_records").getAsLong()).isPositive();
        assertThat(never.get("wal_fsyncs").getAsLong()).isZero();
        assertThat(never.get("wal_records_per_fsync").isJsonNull()).isTrue();

        JsonObject none =
                bench(
                        "1",
                        "2",
                        "concurrent",
                        "16",
                        "64",
                        "0.9",
                        "PT1S",
                        "--client-mode",
                        "persistent");
        assertThat(none.keySet())
                .doesNotContain("fsync", "wal_records", "wal_fsyncs", "wal_records_per_fsync");
    }
}
