package dbf0.kv.race;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.ChildJvm;
import dbf0.cli.CreateHashMapRaceCondition;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RaceExperimentTest {

    /**
     * The HashMap race is probabilistic, so the demo itself keeps the load on past a short
     * --duration until the first miss (up to --give-up-after, 120 s by default): one run with the
     * default settings must show a miss. It runs the demo program in a child JVM, which is killed
     * afterwards: a racing HashMap can leave a server thread spinning forever in a corrupted bin.
     */
    @Tag("slow") // a child JVM for up to two minutes
    @Test
    @Timeout(150)
    void hashMapLosesSightOfKeysDuringResizes() throws Exception {
        ChildJvm.Result run =
                ChildJvm.run(
                        CreateHashMapRaceCondition.class,
                        Duration.ofSeconds(140),
                        "--map",
                        "hashmap",
                        "--duration",
                        "1",
                        "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject report = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(report.get("missing_keys").getAsLong()).as(run.err()).isPositive();
        double firstMiss = report.get("first_miss_seconds").getAsDouble();
        assertThat(report.get("seconds").getAsDouble())
                .as("past 1 s, the run stops at the first miss")
                .isLessThan(Math.max(1.0, firstMiss) + 2.0);
        assertThat(run.err()).containsPattern("First miss after [0-9]+\\.[0-9]{2} s: key 0x");
        JsonObject firstBurst = report.getAsJsonArray("bursts").get(0).getAsJsonObject();
        assertThat(firstBurst.get("map_size_min").getAsLong())
                .as("a miss needs a resize first")
                .isGreaterThanOrEqualTo(12);
        assertThat(firstBurst.get("resize_point").getAsLong())
                .isEqualTo(ResizePoints.atOrBelow(firstBurst.get("map_size_min").getAsLong()));
        assertThat(run.err()).contains("not found").contains("resize point").contains("map size");
    }

    @Tag("slow") // a child JVM per map
    @ParameterizedTest
    @ValueSource(strings = {"concurrent", "hashtable"})
    @Timeout(60)
    void threadSafeMapsNeverMissAConfirmedKey(String map) throws Exception {
        RaceReport report =
                RaceExperiment.run(RaceExperiment.Config.defaults(map, Duration.ofSeconds(5)));
        assertThat(report.confirmedKeys()).isEqualTo(256);
        assertThat(report.checkerGets()).isGreaterThan(1_000);
        assertThat(report.finalSize()).as("the writer made the map resize").isGreaterThan(3_072);
        assertThat(report.missedGets()).isZero();
        assertThat(report.lostKeys()).isEmpty();
        assertThat(report.wrongValues()).isZero();
        assertThat(report.toText()).contains("No GET missed a confirmed key");
        assertThat(report.seconds())
                .as("a thread-safe map runs its duration, no longer")
                .isLessThan(7.0);
    }

    @Test
    void resizePoints() {
        assertThat(ResizePoints.atOrBelow(11)).isZero();
        assertThat(ResizePoints.atOrBelow(12)).isEqualTo(12);
        assertThat(ResizePoints.atOrBelow(3_085)).isEqualTo(3_072);
        assertThat(ResizePoints.atOrBelow(24_770)).isEqualTo(24_576);
        assertThat(ResizePoints.above(3_072)).isEqualTo(6_144);
        assertThat(ResizePoints.capacityOf(24_576)).isEqualTo(32_768);
        assertThat(ResizePoints.countBetween(0, 6_144)).isEqualTo(10); // 12, 24, ..., 6144
    }

    @Test
    void burstsGroupMissesCloseInTime() {
        var events =
                java.util.List.of(
                        new RaceExperiment.MissEvent(1_000_000_000L, 1, 3_080),
                        new RaceExperiment.MissEvent(1_010_000_000L, 2, 3_090),
                        new RaceExperiment.MissEvent(3_000_000_000L, 3, 24_600));
        RaceReport report =
                RaceReport.builder("hashmap", 4, 5)
                        .missedGets(3)
                        .distinctKeysMissed(3)
                        .confirmedKeys(256)
                        .finalSize(30_000)
                        .events(events)
                        .build();
        assertThat(report.bursts()).hasSize(2);
        assertThat(report.bursts().get(0).misses()).isEqualTo(2);
        assertThat(report.bursts().get(0).resizePoint()).isEqualTo(3_072);
        assertThat(report.bursts().get(1).resizePoint()).isEqualTo(24_576);
    }

    @Test
    void theBuilderFillsTheJsonFieldsItNames() {
        var events = java.util.List.of(new RaceExperiment.MissEvent(1_500_000_000L, 7, 3_080));
        var json =
                RaceReport.builder("hashmap", 4, 5)
                        .checkerSets(11)
                        .checkerGets(12)
                        .missedGets(13)
                        .distinctKeysMissed(14)
                        .wrongValues(15)
                        .confirmedKeys(16)
                        .writerSets(17)
                        .finalSize(18)
                        .lostKeys(java.util.List.of(1, 2))
                        .events(events)
                        .connectionErrors(19)
                        .build()
                        .toJson();
        assertThat(json.keySet())
                .containsExactly(
                        "map_type",
                        "server_threads",
                        "seconds",
                        "missing_keys",
                        "distinct_keys_missed",
                        "lost_for_good",
                        "wrong_values",
                        "sets",
                        "gets",
                        "confirmed_keys",
                        "writer_sets",
                        "final_size",
                        "connection_errors",
                        "first_miss_seconds",
                        "bursts");
        assertThat(json.get("sets").getAsLong()).isEqualTo(11);
        assertThat(json.get("gets").getAsLong()).isEqualTo(12);
        assertThat(json.get("missing_keys").getAsLong()).isEqualTo(13);
        assertThat(json.get("distinct_keys_missed").getAsInt()).isEqualTo(14);
        assertThat(json.get("wrong_values").getAsLong()).isEqualTo(15);
        assertThat(json.get("confirmed_keys").getAsInt()).isEqualTo(16);
        assertThat(json.get("writer_sets").getAsLong()).isEqualTo(17);
        assertThat(json.get("final_size").getAsInt()).isEqualTo(18);
        assertThat(json.get("lost_for_good").getAsInt()).isEqualTo(2);
        assertThat(json.get("connection_errors").getAsLong()).isEqualTo(19);
        assertThat(json.get("first_miss_seconds").getAsDouble()).isEqualTo(1.5);
    }

    @Test
    void configBuilderKeepsTheDemoDefaults() {
        var config =
                RaceExperiment.Config.builder("hashtable", Duration.ofSeconds(3)).seed(42).build();
        assertThat(config)
                .isEqualTo(
                        new RaceExperiment.Config(
                                "hashtable",
                                4,
                                2,
                                2,
                                Duration.ofSeconds(3),
                                0.05,
                                false,
                                Duration.ofMillis(500),
                                null,
                                42,
                                RaceExperiment.Config.DEFAULT_GIVE_UP_AFTER,
                                null));
    }
}
