package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The B+tree store holds more data than its heap: {@link BTreeMoreThanHeapMain} in a child JVM with
 * a small {@code -Xmx} writes several times its heap in 1 KiB values, reopens the store and checks
 * sampled reads and a scan. Only the buffer pool grows with the data, up to its bound; an
 * OutOfMemoryError, a wrong value or a missing key fails it.
 */
@Tag("slow") // a child JVM writing 100 MiB: half a minute
class BTreeMoreThanHeapTest {

    @Test
    void aThirtyTwoMebibyteHeapHoldsThreeTimesItsSize(@TempDir Path dir) throws Exception {
        run(dir, "-Xmx32m", 100, 4L << 20, Duration.ofMinutes(4));
    }

    /**
     * Writes 3 GiB (many minutes, 3.5 GB of temporary disk), so it runs only when asked: {@code
     * ./mvnw test -pl library -Dtest='BTreeMoreThanHeapTest' -Ddbf0.big=true}.
     */
    @Test
    @EnabledIfSystemProperty(
            named = "dbf0.big",
            matches = "true",
            disabledReason =
                    "asked for only (3 GiB on disk, many minutes): ./mvnw test -pl library"
                            + " -Dtest=BTreeMoreThanHeapTest -Ddbf0.big=true")
    void aQuarterGibibyteHeapHoldsThreeGibibytes(@TempDir Path dir) throws Exception {
        run(dir, "-Xmx256m", 3072, 64L << 20, Duration.ofMinutes(90));
    }

    private static void run(Path dir, String heap, int mebibytes, long pool, Duration timeout)
            throws Exception {
        ChildJvm.Result result =
                ChildJvm.run(
                        List.of(heap, "-XX:+UseSerialGC"),
                        BTreeMoreThanHeapMain.class,
                        timeout,
                        dir.toString(),
                        Integer.toString(mebibytes),
                        Long.toString(pool));
        System.err.printf("BTreeMoreThanHeapTest %s: %s%n", heap, result.out().strip());
        assertThat(result.exitCode())
                .as("the child's exit; its output:%n%s", result.out())
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
        assertThat(Long.parseLong(r.get("userBytes"))).isGreaterThan(3 * maxHeap);
        assertThat(Long.parseLong(r.get("diskBytes"))).isGreaterThan(3 * maxHeap);
        assertThat(Long.parseLong(r.get("evictions"))).isPositive();
    }
}
