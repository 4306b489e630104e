package dbf0.kv.bench.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.cli.Dbf0;
import dbf0.common.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class DiskBenchTest {

    record Run(int exitCode, String out, String err) {}

    static Run diskBench(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "disk-bench";
        System.arraycopy(args, 0, line, 1, args.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(line);
        return new Run(code, out.toString(), err.toString());
    }

    static final List<String> FIELDS_2020 =
            List.of("nanoTime", "put", "delete", "deleteFound", "get", "getFound", "fileSize");

    @Test
    void mixesAreThe2020PercentagesAndTheDbBenchNames() {
        assertThat(Mix.parse("PUT_HEAVY"))
                .extracting(Mix::putPercent, Mix::deletePercent, Mix::getPercent)
                .containsExactly(90, 5, 5);
        assertThat(Mix.parse("get_heavy"))
                .extracting(Mix::putPercent, Mix::deletePercent, Mix::getPercent)
                .containsExactly(10, 5, 85);
        assertThat(Mix.parse("DELETE_HEAVY"))
                .extracting(Mix::putPercent, Mix::deletePercent, Mix::getPercent)
                .containsExactly(45, 45, 10);
        assertThat(Mix.parse("BALANCED"))
                .extracting(Mix::putPercent, Mix::deletePercent, Mix::getPercent)
                .containsExactly(33, 33, 34);
        assertThat(Mix.parse("fillseq").sequential()).isTrue();
        assertThat(Mix.parse("readrandom").getPercent()).isEqualTo(100);
        assertThat(Mix.parse("readrandom").preload()).isTrue();
        assertThatThrownBy(() -> Mix.parse("WRITE_HEAVY"))
                .hasMessageContaining("PUT_HEAVY")
                .hasMessageContaining("fillrandom");
    }

    @Test
    void keysAreZeroPaddedDecimalsOfOneWidth() {
        KeyChooser keys = new KeyChooser(1_000_000, Mix.parse("fillseq"), 0);
        assertThat(new String(keys.format(42))).isEqualTo("000042");
        assertThat(new String(keys.format(999_999))).isEqualTo("999999");
        SplittableRandom random = new SplittableRandom(1);
        assertThat(List.of(keys.putKey(random), keys.putKey(random), keys.putKey(random)))
                .containsExactly(0L, 1L, 2L);
    }

    @Test
    void knownKeysComeFromTheLastPuts() {
        KeyChooser keys = new KeyChooser(1L << 40, Mix.parse("BALANCED"), 1.0);
        SplittableRandom random = new SplittableRandom(7);
        List<Long> put = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            put.add(keys.putKey(random));
        }
        for (int i = 0; i < 100; i++) {
            assertThat(put).contains(keys.readKey(random));
        }
    }

    @Test
    void liveKeysCountEachKeyOnce() {
        LiveKeys live = LiveKeys.forKeySpace(1000);
        live.put(5);
        live.put(5);
        live.put(999);
        live.delete(5);
        live.delete(6);
        assertThat(live.count()).isEqualTo(1);
        assertThat(LiveKeys.forKeySpace(LiveKeys.MAX_KEYS + 1)).isNull();
    }

    @Test
    void sizesTakeBinaryUnits() {
        assertThat(ByteSize.parse("65536")).isEqualTo(65536);
        assertThat(ByteSize.parse("64KiB")).isEqualTo(64 << 10);
        assertThat(ByteSize.parse("32m")).isEqualTo(32L << 20);
        assertThat(ByteSize.parse("1GiB")).isEqualTo(1L << 30);
        assertThatThrownBy(() -> ByteSize.parse("12 parsecs")).hasMessageContaining("not a size");
    }

    /** The engines that do not count the bytes they write: their write_amp is null. */
    static final Set<String> UNCOUNTED_BYTES = Set.of("sqlite", "lmdb");

    @ParameterizedTest
    @ValueSource(strings = {"map", "rocksdb", "lsm", "btree", "sqlite", "mvstore", "lmdb"})
    void printsThe2020FieldsFirstAndCountsThatAddUp(String type, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("lines.jsonl");
        Run run =
                diskBench(
                        dir.resolve("data").toString(),
                        "1000",
                        "100",
                        "BALANCED",
                        "0.5",
                        "2",
                        "PT1S",
                        type,
                        "--interval",
                        "400ms",
                        "--memtable-size",
                        "64KiB",
                        "--out",
                        out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).as("400 ms intervals in 1 s, the last one shorter").hasSize(3);
        assertThat(Files.readAllLines(out)).isEqualTo(lines);
        long ops = 0;
        for (String line : lines) {
            JsonObject o = JsonParser.parseString(line).getAsJsonObject();
            assertThat(o.keySet().stream().limit(7).toList()).isEqualTo(FIELDS_2020);
            assertThat(o.get("type").getAsString()).isEqualTo(type);
            assertThat(o.get("getFound").getAsLong()).isBetween(0L, o.get("get").getAsLong());
            assertThat(o.get("deleteFound").getAsLong()).isBetween(0L, o.get("delete").getAsLong());
            assertThat(o.get("fileSize").getAsLong()).isPositive();
            if (UNCOUNTED_BYTES.contains(type)) {
                assertThat(o.get("write_amp").isJsonNull()).isTrue();
            } else if (type.equals("mvstore")) {
                // No log: a key overwritten between two commits reaches the file once.
                assertThat(o.get("write_amp").getAsDouble()).isPositive();
            } else { // every byte goes through the log first
                assertThat(o.get("write_amp").getAsDouble()).isGreaterThanOrEqualTo(1.0);
            }
            assertThat(o.get("p50_us").getAsDouble())
                    .isLessThanOrEqualTo(o.get("p99_us").getAsDouble());
            ops += o.get("put").getAsLong() + o.get("delete").getAsLong();
            ops += o.get("get").getAsLong();
        }
        assertThat(ops).isPositive();
        double seconds = 0;
        for (String line : lines) {
            seconds += JsonParser.parseString(line).getAsJsonObject().get("seconds").getAsDouble();
        }
        assertThat(seconds).isBetween(0.99, 1.5);
    }

    @Test
    void numbersArePlainAndMissingFiguresAreNull() {
        var iv = new OpCounters().take();
        var zero = new EngineCounters(0, -1, 123, 0);
        var context = new IntervalLine.Context("map", "BALANCED", 1, "never", "none", 3, 10);
        String line =
                IntervalLine.format(
                        7,
                        0.5,
                        iv,
                        new IntervalLine.Totals(123_456_789, 0, -1, zero, zero),
                        context);
        JsonObject o = JsonParser.parseString(line).getAsJsonObject();
        assertThat(line).contains("\"fileSize\":123456789").contains("\"stall_ms\":0.000123");
        assertThat(o.get("ops_per_sec").getAsDouble()).isZero();
        for (String missing :
                List.of("p99_us", "write_amp", "space_amp", "read_amp", "blocks_read")) {
            assertThat(o.get(missing).isJsonNull()).as(missing).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"map", "rocksdb", "lsm", "btree"})
    void underFsyncAlwaysConcurrentWritersShareForces(String type, @TempDir Path dir) {
        Run run =
                diskBench(
                        dir.toString(),
                        "1000",
                        "100",
                        "fillrandom",
                        "0",
                        "8",
                        "600ms",
                        type,
                        "--fsync",
                        "always",
                        "--interval",
                        "1s");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject o = JsonParser.parseString(run.out().strip()).getAsJsonObject();
        assertThat(o.get("fsyncs").getAsLong()).isPositive();
        assertThat(o.get("records_per_fsync").getAsDouble()).isGreaterThanOrEqualTo(1.0);
        assertThat(o.get("fsync").getAsString()).isEqualTo("always");
    }

    @Test
    void readrandomFillsTheKeySpaceFirstAndThenFindsEveryKey(@TempDir Path dir) {
        Run run =
                diskBench(
                        dir.toString(),
                        "500",
                        "10",
                        "readrandom",
                        "0",
                        "1",
                        "300ms",
                        "map",
                        "--interval",
                        "1s");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject o = JsonParser.parseString(run.out().strip()).getAsJsonObject();
        assertThat(o.get("put").getAsLong()).isZero();
        assertThat(o.get("get").getAsLong()).isPositive();
        assertThat(o.get("getFound").getAsLong()).isEqualTo(o.get("get").getAsLong());
        assertThat(o.get("live_bytes").getAsLong()).isEqualTo(500L * (3 + 10));
    }

    @Test
    void badArgumentsSayWhatIsWrong(@TempDir Path dir) {
        Run mix = diskBench(dir.toString(), "1000", "100", "MOSTLY", "0.5", "2", "1s", "map");
        assertThat(mix.exitCode()).isEqualTo(2);
        assertThat(mix.err()).contains("unknown mix 'MOSTLY'");
        Run type = diskBench(dir.toString(), "1000", "100", "BALANCED", "0.5", "2", "1s", "bdb");
        assertThat(type.exitCode()).isEqualTo(2);
        assertThat(type.err()).contains("unknown type 'bdb'").contains("sqlite, mvstore, lmdb");
        Run page =
                diskBench(
                        dir.toString(),
                        "1000",
                        "100",
                        "BALANCED",
                        "0.5",
                        "2",
                        "1s",
                        "sqlite",
                        "--page-size",
                        "3000");
        assertThat(page.exitCode()).isEqualTo(2);
        assertThat(page.err()).contains("--page-size must be a power of two");
        Run small =
                diskBench(
                        dir.toString(),
                        "1000",
                        "100",
                        "BALANCED",
                        "0.5",
                        "2",
                        "1s",
                        "btree",
                        "--page-size",
                        "512");
        assertThat(small.exitCode()).isEqualTo(2);
        assertThat(small.err()).contains("from 1KiB to 32KiB for btree");
        Run rate = diskBench(dir.toString(), "1000", "100", "BALANCED", "1.5", "2", "1s", "map");
        assertThat(rate.exitCode()).isEqualTo(2);
        assertThat(rate.err()).contains("KNOWN_KEY_RATE");
    }
}
