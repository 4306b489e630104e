package dbf0.kv.race;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.ChildJvm;
import dbf0.cli.CreateHashMapWriteRace;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("slow") // every case runs the experiment in a child JVM
class WriteRaceTest {

    @ParameterizedTest
    @ValueSource(strings = {"hashtable", "concurrent"})
    @Timeout(60)
    void threadSafeMapsKeepEveryKey(String map) throws Exception {
        WriteRace.Result result = WriteRace.run(map, 4, 50_000, 30_000);
        assertThat(result.anomalous()).as("%s", result).isFalse();
        assertThat(result.size()).isEqualTo(200_000);
        assertThat(result.entriesIterated()).isEqualTo(200_000);
        assertThat(result.keysMissing()).isZero();
    }

    /** A map whose put spins, like a writer caught in a bin that a race tangled into a loop. */
    public static final class SpinningMap extends java.util.HashMap<Object, Object> {
        static volatile boolean spin = true;

        @Override
        public Object put(Object key, Object value) {
            while (spin) {
                Thread.onSpinWait();
            }
            return super.put(key, value);
        }
    }

    @Test
    @Timeout(30)
    void aWriterThatNeverReturnsIsReportedAsStuckAfterTheTimeLimit() throws Exception {
        SpinningMap.spin = true;
        try {
            long start = System.nanoTime();
            WriteRace.Result result = WriteRace.run(SpinningMap.class.getName(), 3, 10, 300);
            assertThat(result.stuckThreads()).isEqualTo(3);
            assertThat(result.anomalous()).isTrue();
            assertThat(result.size()).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofSeconds(10));
        } finally {
            SpinningMap.spin = false; // let the abandoned writers finish
        }
    }

    /**
     * Probabilistic only towards detection: retries until HashMap shows a problem or time runs out.
     * In a child JVM, killed afterwards, since a racing HashMap can leave a writer spinning
     * forever. A run whose writer (and then whose count) spins is reported as stuck after
     * --time-limit each, so the child's own deadline must exceed twice that plus JVM start-up on a
     * slow machine.
     */
    @Test
    @Timeout(150)
    void hashMapGoesWrongUnderConcurrentWrites() throws Exception {
        long budget = System.nanoTime() + 90_000_000_000L;
        JsonObject result;
        do {
            ChildJvm.Result run =
                    ChildJvm.run(
                            CreateHashMapWriteRace.class,
                            Duration.ofSeconds(45),
                            "--maps",
                            "hashmap",
                            "--rounds",
                            "1",
                            "--keys",
                            "100000",
                            "--time-limit",
                            "5s",
                            "--json");
            assertThat(run.exitCode()).as(run.err()).isZero();
            result =
                    JsonParser.parseString(run.out())
                            .getAsJsonObject()
                            .getAsJsonArray("results")
                            .get(0)
                            .getAsJsonObject();
        } while (!result.get("anomalous").getAsBoolean() && System.nanoTime() < budget);
        assertThat(result.get("anomalous").getAsBoolean()).as("%s", result).isTrue();
    }
}
