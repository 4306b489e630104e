package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LSM store holds more data than its heap and answers correctly: {@link MoreThanHeapMain} in a
 * child JVM with a small {@code -Xmx} writes several times its heap in 1 KiB values (with
 * overwrites and deletes), reopens the store, and checks sampled reads and a scan. An
 * OutOfMemoryError, a wrong value or a missing key fails it. Only the memtables and the block cache
 * grow with the workload, both bounded by the options; the tables' indexes and bloom filters grow
 * with the data, and the run reports what they cost (the heap after a reopen, less the heap before
 * the first open).
 */
class MoreThanHeapTest {

    @Test
    void aSixtyFourMebibyteHeapHoldsFourTimesItsSize(@TempDir Path dir) throws Exception {
        Map<String, String> r = run(dir, "-Xmx64m", 256, "4m", "8m", Duration.ofMinutes(3));
        assertThat(Long.parseLong(r.get("compactions"))).isPositive();
    }

    /**
     * Writes 3 GiB (minutes, and 3.5 GB of temporary disk), so it runs only when asked: {@code
     * ./mvnw test -pl library -Dtest='MoreThanHeapTest' -Ddbf0.big=true}.
     */
    @Test
    @EnabledIfSystemProperty(
            named = "dbf0.big",
            matches = "true",
            disabledReason =
                    "asked for only (3 GiB on disk, minutes): ./mvnw test -pl library"
                            + " -Dtest=MoreThanHeapTest -Ddbf0.big=true")
    void aQuarterGibibyteHeapHoldsThreeGibibytes(@TempDir Path dir) throws Exception {
        run(dir, "-Xmx256m", 3072, "32m", "64m", Duration.ofMinutes(40));
    }

    private static Map<String, String> run(
            Path dir,
            String heap,
            int mebibytes,
            String memtable,
            String blockCache,
            Duration timeout)
            throws Exception {
        ChildJvm.Result result =
                ChildJvm.run(
                        List.of(heap, "-XX:+UseSerialGC"),
                        MoreThanHeapMain.class,
                        timeout,
                        dir.toString(),
                        Integer.toString(mebibytes),
                        "1024",
                        memtable,
                        blockCache,
                        "2000");
        System.err.printf("MoreThanHeapTest %s: %s%n", heap, result.out().strip());
        assertThat(result.exitCode())
                .as("the child's exit; its output:%n%s%n%s", result.out(), tail(result.err()))
                .isZero();
        Map<String, String> r = new HashMap<>();
        for (String line : result.out().split("\n")) {
            if (line.startsWith("RESULT ")) {
                for (String field : line.substring("RESULT ".length()).split(" ")) {
                    int eq = field.indexOf('=');
                    r.put(field.substring(0, eq), field.substring(eq + 1));
                }
            }
        }
        assertThat(r.get("ok")).isEqualTo("true");
        long maxHeap = Long.parseLong(r.get("maxHeap"));
        assertThat(Long.parseLong(r.get("userBytes")))
                .as("bytes written, against the heap")
                .isGreaterThan(3 * maxHeap);
        assertThat(Long.parseLong(r.get("diskBytes")))
                .as("bytes the store holds on disk, against the heap")
                .isGreaterThan(3 * maxHeap);
        assertThat(Long.parseLong(r.get("flushes"))).isPositive();
        return r;
    }

    private static String tail(String s) {
        return s.length() > 4000 ? "..." + s.substring(s.length() - 4000) : s;
    }
}
