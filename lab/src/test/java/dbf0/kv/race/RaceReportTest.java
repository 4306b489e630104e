package dbf0.kv.race;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The race summary reads as English whatever the counts: plurals and the number of threads. */
class RaceReportTest {

    private static RaceReport.Builder oneMiss() {
        return RaceReport.builder("hashmap", 1, 5)
                .checkerSets(1)
                .checkerGets(1)
                .missedGets(1)
                .distinctKeysMissed(1)
                .confirmedKeys(256)
                .writerSets(1)
                .finalSize(3_080)
                .lostKeys(List.of(7))
                .wrongValues(1)
                .events(List.of(new RaceExperiment.MissEvent(1_000_000_000L, 7, 1)));
    }

    @Test
    void severalWritersAndCheckersAreNamedAsSeveral() {
        String text = oneMiss().threads(2, 3).build().toText();
        assertThat(text)
                .contains("The 2 writers stored 1 new key;")
                .contains("The 3 checkers confirmed 256 of 256")
                .doesNotContain("The writer stored")
                .doesNotContain("The checker confirmed");
    }

    @Test
    void oneOfEachIsSingular() {
        String text = oneMiss().threads(1, 1).build().toText();
        assertThat(text)
                .contains("map 'hashmap', 1 server thread, 5.0 s")
                .contains("The writer stored 1 new key;")
                .contains("The checker confirmed")
                .contains("then sent 1 GET (and 1 SET)")
                .contains("1 GET came back \"not found\"")
                .contains("(1 distinct key)")
                .contains("when the map held 1 entry;")
                .contains("The misses came in 1 burst:")
                .contains("1 miss of   1 key,")
                .contains("1 confirmed key was lost for good")
                .contains("1 GET returned a value");
        assertThat(text).doesNotContainPattern("\\b1 (misses|keys|GETs|SETs|entries|bursts)\\b");
    }

    @Test
    void manyArePlural() {
        var events =
                List.of(
                        new RaceExperiment.MissEvent(1_000_000_000L, 1, 3_080),
                        new RaceExperiment.MissEvent(1_001_000_000L, 2, 3_081));
        String text =
                RaceReport.builder("hashmap", 4, 5)
                        .missedGets(2)
                        .distinctKeysMissed(2)
                        .confirmedKeys(256)
                        .checkerGets(10)
                        .checkerSets(3)
                        .writerSets(5_000)
                        .finalSize(5_000)
                        .events(events)
                        .lostKeys(List.of(1, 2))
                        .threads(2, 2)
                        .build()
                        .toText();
        assertThat(text)
                .contains("4 server threads")
                .contains("2 GETs came back")
                .contains("(2 distinct keys)")
                .contains("2 misses of   2 keys,")
                .contains("2 confirmed keys were lost for good")
                .contains("5,000 new keys");
    }

    @Test
    void noWriterIsSaidSo() {
        String text =
                RaceReport.builder("concurrent", 4, 5)
                        .confirmedKeys(256)
                        .finalSize(256)
                        .threads(0, 2)
                        .build()
                        .toText();
        assertThat(text).contains("No writer ran; the map ended with 256 entries");
    }
}
