package dbf0.kv.race;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.ChildJvm;
import dbf0.cli.CreateHashMapRaceCondition;
import dbf0.cli.Dbf0;
import dbf0.common.cli.Cli;
import dbf0.kv.check.HistoryRecorder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code race --history}, then {@code dbf0 check} on the file it wrote. */
class RaceHistoryTest {

    @TempDir Path tmp;

    private record Check(int exitCode, String out) {}

    private static Check check(Path file) {
        StringWriter out = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        int code = cl.execute("check", "--time-limit", "60s", file.toString());
        return new Check(code, out.toString());
    }

    /**
     * The race is probabilistic: each attempt keeps the load on until the first miss (at most 50
     * s), and a second attempt is allowed. It runs in a child JVM, killed afterwards, because a
     * racing HashMap can leave a server thread spinning in a corrupted bin.
     */
    @Test
    @Timeout(200)
    void aHashMapRaceHistoryIsNotLinearizable() throws Exception {
        Path file = tmp.resolve("race.jsonl");
        ChildJvm.Result run = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            run =
                    ChildJvm.run(
                            CreateHashMapRaceCondition.class,
                            Duration.ofSeconds(70),
                            "--map",
                            "hashmap",
                            "--duration",
                            "1",
                            "--stop-at-first-miss",
                            "--give-up-after",
                            "50s",
                            "--history",
                            file.toString());
            if (run.exitCode() == 0 && !run.out().contains("No GET missed")) {
                break;
            }
        }
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("First miss after")
                .contains("History: ")
                .contains(CreateHashMapRaceCondition.DEFINITION)
                .contains("Check it: dbf0 check " + file);
        Check verdict = check(file);
        assertThat(verdict.exitCode()).as(verdict.out()).isEqualTo(1);
        // the failing key, a GET that found it, and the GET that then missed it (starred: it cannot
        // be placed)
        assertThat(verdict.out())
                .containsPattern("NOT LINEARIZABLE \\(key [0-9a-f]{2}, ")
                .containsPattern("get [0-9a-f]{2} -> \"[0-9a-f]{8}\"")
                .containsPattern("(?m)^ +\\* c\\d+ get [0-9a-f]{2} -> missing");
    }

    @Test
    @Timeout(60)
    void aConcurrentHashMapRaceHistoryIsLinearizable() throws Exception {
        Path file = tmp.resolve("chm.jsonl");
        RaceReport report;
        HistoryRecorder.Summary recorded;
        try (HistoryRecorder recorder = HistoryRecorder.open(file, 1_000_000)) {
            report =
                    RaceExperiment.run(
                            RaceExperiment.Config.builder("concurrent", Duration.ofSeconds(3))
                                    .seed(7)
                                    .history(recorder)
                                    .build());
            recorded = recorder.finish();
        }
        assertThat(report.missedGets()).isZero();
        assertThat(recorded.truncated()).isFalse();
        assertThat(recorded.operations())
                .as("checkers' and writers' operations")
                .isGreaterThanOrEqualTo(
                        report.checkerGets() + report.checkerSets() + report.writerSets());
        Check verdict = check(file);
        assertThat(verdict.exitCode()).as(verdict.out()).isZero();
        assertThat(verdict.out()).startsWith("chm.jsonl: linearizable (");
    }
}
