package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.kv.check.Dbf0HistoryFormat;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code dbf0 check} run in-process, as the command line runs it. */
class CheckCommandTest {

    @TempDir Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("check"));
        all.addAll(List.of(args));
        return cl.execute(all.toArray(String[]::new));
    }

    private static String resource(String path) throws Exception {
        return Path.of(CheckCommandTest.class.getResource("/histories/" + path).toURI()).toString();
    }

    @Test
    void etcdFilesGetOneVerdictLineEachAndTheViolationsTimeline() throws Exception {
        assertThat(
                        run(
                                "--format",
                                "etcd",
                                resource("etcd/etcd_002.log"),
                                resource("etcd/etcd_000.log")))
                .isEqualTo(1);
        String text = out.toString();
        assertThat(text)
                .containsPattern(
                        "(?m)^etcd_002\\.log: linearizable \\(77 ops, 1 partition, [0-9.]+ s\\)$");
        assertThat(text)
                .containsPattern(
                        "(?m)^etcd_000\\.log: NOT LINEARIZABLE \\(85 ops in the failing part,"
                                + " [0-9.]+ s\\)$");
        // The timeline: one line per operation, bars of | and -, the unexplained ones starred.
        assertThat(text).containsPattern("(?m)^  \\* c\\d+ \\S+.*\\|");
        assertThat(text.lines().filter(l -> l.matches("  [* ] c\\d+ .*\\|.*"))).hasSize(85);
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void linearizableFilesExitZero() throws Exception {
        assertThat(run("--format", "kv", "--model", "kv", resource("kv/c01-ok.txt"))).isZero();
        assertThat(out.toString()).startsWith("c01-ok.txt: linearizable (58 ops, 10 partitions, ");
    }

    @Test
    void htmlIsWrittenForTheFirstViolationAndIsSelfContained() throws Exception {
        Path html = tmp.resolve("v.html");
        assertThat(
                        run(
                                "--format",
                                "kv",
                                "--html",
                                html.toString(),
                                resource("kv/c01-ok.txt"),
                                resource("kv/c01-bad.txt")))
                .isEqualTo(1);
        assertThat(out.toString())
                .contains("c01-bad.txt: NOT LINEARIZABLE (key 7, 5 ops")
                .contains("HTML timeline written to");
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertThat(page)
                .startsWith("<!DOCTYPE html>")
                .contains("<svg")
                .contains("client 0")
                .contains("class=\"bad\"")
                .contains("get 7 -&gt; &quot;x 0 0 y&quot;");
        assertThat(page)
                .doesNotContain("<script")
                .doesNotContain("<link")
                .doesNotContain("src=")
                .doesNotContain("href")
                .doesNotContain("@import")
                .doesNotContain("url(");
    }

    @Test
    void dbf0FormatIsTheDefault() throws Exception {
        Path h = tmp.resolve("h.jsonl");
        byte[] k = {1, 2};
        Files.write(
                h,
                List.of(
                        Dbf0HistoryFormat.line(1, "set", k, new byte[] {9}, null, 0, 10L, "ok"),
                        Dbf0HistoryFormat.line(2, "get", k, null, false, 20, 30L, "ok")));
        assertThat(run(h.toString())).isEqualTo(1);
        assertThat(out.toString())
                .contains("h.jsonl: NOT LINEARIZABLE (key 0102, 2 ops")
                .contains("* c2 get 0102 -> missing");
    }

    @Test
    void runningOutOfTimeIsUnknownWithExitThree() throws Exception {
        Path h = tmp.resolve("hard.jsonl");
        List<String> lines = new ArrayList<>();
        byte[] k = {7};
        for (int i = 0; i < 40; i++) {
            lines.add(
                    Dbf0HistoryFormat.line(
                            i, "set", k, new byte[] {(byte) i}, null, 0, 100L, "ok"));
        }
        lines.add(
                Dbf0HistoryFormat.line(
                        99, "get", k, new byte[] {(byte) 200}, true, 101, 102L, "ok"));
        Files.write(h, lines);
        assertThat(run("--time-limit", "100ms", h.toString())).isEqualTo(3);
        assertThat(out.toString())
                .startsWith("hard.jsonl: UNKNOWN, ran out of --time-limit (key 07, 41 ops");
    }

    @Test
    void badInputIsAUsageErrorNamingTheFileAndLine() throws Exception {
        Path h = tmp.resolve("bad.jsonl");
        Files.writeString(
                h,
                Dbf0HistoryFormat.line(1, "set", new byte[] {1}, new byte[] {2}, null, 0, 1L, "ok")
                        + "\nnot json\n");
        assertThat(run(h.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("dbf0 check: error: " + h + ":2: not a JSON object");

        assertThat(run(tmp.resolve("missing.jsonl").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("missing.jsonl: no such file");

        assertThat(run("--format", "kv", "--model", "register", resource("kv/c01-ok.txt")))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--model register does not fit --format kv");

        assertThat(run("--format", "xml", resource("kv/c01-ok.txt"))).isEqualTo(2);
        assertThat(run()).isEqualTo(2); // no FILE: picocli's own usage error
    }

    @Test
    void aJepsenFileWithoutFormatGetsOneLineThatSuggestsFormat() throws Exception {
        String edn = resource("kv/c01-ok.txt");
        assertThat(run(edn)).isEqualTo(2);
        String message = err.toString();
        assertThat(message.lines()).hasSize(2);
        assertThat(message.lines().toList().get(0))
                .startsWith("dbf0 check: error: " + edn + " is not a dbf0 history")
                .contains("assumed without --format");
        assertThat(message.lines().toList().get(1))
                .contains("--format etcd")
                .contains("--format kv")
                .contains("--format auto")
                .contains("accepted: dbf0, etcd, kv, auto");
        assertThat(message)
                .doesNotContainIgnoringCase("gson")
                .doesNotContain("JsonReader")
                .doesNotContain("http");
    }

    @Test
    void withFormatGivenTheParseErrorNamesTheLineWithoutGsonAdvice() throws Exception {
        Path h = tmp.resolve("plain.txt");
        Files.writeString(h, "hello world\n");
        assertThat(run("--format", "dbf0", h.toString())).isEqualTo(2);
        assertThat(err.toString().lines())
                .containsExactly(
                        "dbf0 check: error: "
                                + h
                                + ":1: not a JSON object as expected: not valid JSON",
                        "see 'dbf0 check --help'");
    }

    @Test
    void helpNamesTheFormatsAndExitCodes() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains("Usage: dbf0 check")
                .contains("--format")
                .contains("3   no violation found");
    }

    @Test
    void autoChecksFilesOfSeveralFormatsInOneRunInTheOrderGiven() throws Exception {
        Path h = tmp.resolve("h.jsonl");
        Files.writeString(
                h,
                Dbf0HistoryFormat.line(0, "set", new byte[] {1}, new byte[] {2}, null, 1, 2L, "ok")
                        + "\n",
                StandardCharsets.UTF_8);
        assertThat(
                        run(
                                "--format",
                                "auto",
                                resource("kv/c01-ok.txt"),
                                resource("etcd/etcd_000.log"),
                                h.toString(),
                                resource("etcd/etcd_002.log")))
                .isEqualTo(1);
        List<String> verdicts = out.toString().lines().filter(l -> l.matches("^\\S+: .*")).toList();
        assertThat(verdicts).hasSize(4);
        assertThat(verdicts.get(0)).startsWith("c01-ok.txt: linearizable (58 ops, 10 partitions");
        assertThat(verdicts.get(1)).startsWith("etcd_000.log: NOT LINEARIZABLE");
        assertThat(verdicts.get(2)).startsWith("h.jsonl: linearizable (1 op, 1 partition,");
        assertThat(verdicts.get(3)).startsWith("etcd_002.log: linearizable (77 ops");
    }

    @Test
    void autoNamesAFileWhoseFormatItCannotTell() throws Exception {
        Path junk = tmp.resolve("notes.txt");
        Files.writeString(junk, "hello\nworld\n", StandardCharsets.UTF_8);
        assertThat(run("--format", "auto", resource("kv/c01-ok.txt"), junk.toString()))
                .isEqualTo(2);
        assertThat(out.toString()).startsWith("c01-ok.txt: linearizable");
        assertThat(err.toString().lines())
                .hasSize(2)
                .containsExactly(
                        "dbf0 check: error: cannot tell the format of "
                                + junk
                                + " from its first lines (no JSON object, EDN map or jepsen.util"
                                + " event line)",
                        "give --format dbf0, etcd or kv");
    }

    /** One run's exit status and output, with every elapsed time written as T. */
    private record Outcome(int exit, String out, String err) {
        static Outcome of(int exit, StringWriter out, StringWriter err) {
            return new Outcome(
                    exit,
                    out.toString().replaceAll("[0-9.]+ s\\)", "T)"),
                    err.toString().replaceAll("[0-9.]+ s\\)", "T)"));
        }
    }

    /** {@code dbf0 check ARGS} without picocli; null if it declines. */
    private static Outcome plain(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = PlainCheck.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        if (exit == PlainCheck.DECLINED) {
            assertThat(out.toString() + err.toString())
                    .as("declined before doing anything")
                    .isEmpty();
            return null;
        }
        return Outcome.of(exit, out, err);
    }

    /** {@code dbf0 check ARGS} through picocli, as every other command runs. */
    private static Outcome picocli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("check"));
        all.addAll(List.of(args));
        return Outcome.of(cl.execute(all.toArray(String[]::new)), out, err);
    }

    @Test
    void aPlainCommandLineRunsWithoutPicocliAndSaysExactlyWhatPicocliWould() throws Exception {
        Path hard = tmp.resolve("hard.jsonl");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            lines.add(
                    Dbf0HistoryFormat.line(
                            i, "set", new byte[] {7}, new byte[] {(byte) i}, null, 0, 100L, "ok"));
        }
        lines.add(
                Dbf0HistoryFormat.line(
                        99, "get", new byte[] {7}, new byte[] {(byte) 200}, true, 101, 102L, "ok"));
        Files.write(hard, lines);
        String ok = resource("kv/c01-ok.txt");
        String bad = resource("kv/c01-bad.txt");
        String etcd = resource("etcd/etcd_000.log");
        List<String[]> plainOnes =
                List.of(
                        new String[] {"--format", "etcd", resource("etcd/etcd_002.log"), etcd},
                        new String[] {"--format=kv", "--model", "kv", ok},
                        new String[] {"--threads", "2", "--format", "auto", bad, ok, etcd},
                        new String[] {bad, "--format", "kv", "--", ok},
                        new String[] {"--time-limit", "100ms", hard.toString()},
                        // errors found while checking: a file in another format, a missing file
                        new String[] {ok},
                        new String[] {"--format", "auto", ok, tmp.resolve("no.log").toString()});
        for (String[] args : plainOnes) {
            Outcome plain = plain(args);
            assertThat(plain).as(String.join(" ", args)).isNotNull();
            assertThat(plain).as(String.join(" ", args)).isEqualTo(picocli(args));
        }
        assertThat(plain(bad, "--format", "kv").exit()).isEqualTo(1);
        assertThat(plain(ok).err()).startsWith("dbf0 check: error: " + ok + " is not a dbf0");
    }

    @Test
    void anythingButAPlainCommandLineIsLeftToPicocli() {
        String ok = "c01-ok.txt";
        List<String[]> declined =
                List.of(
                        new String[] {},
                        new String[] {"--help"},
                        new String[] {"-h", ok},
                        new String[] {"--version"},
                        new String[] {"--html", "v.html", ok},
                        new String[] {"--format", "kv", "--format", "kv", ok},
                        new String[] {"--format"},
                        new String[] {"--format", "--model", ok},
                        new String[] {"--format", "xml", ok},
                        new String[] {"--model", "register", "--format", "kv", ok},
                        new String[] {"--time-limit", "soon", ok},
                        new String[] {"--threads", "0", ok},
                        new String[] {"--threads", "-1", ok},
                        new String[] {"--threads", "02", ok},
                        new String[] {"--nosuch", ok},
                        new String[] {"-", ok},
                        new String[] {"@args.txt"},
                        new String[] {"--format", "kv", ""});
        for (String[] args : declined) {
            assertThat(plain(args)).as(String.join(" ", args)).isNull();
        }
    }

    @Test
    void reportNumbersAreWrittenAsTheFormatterWouldWriteThem() {
        for (long n : new long[] {0, 1, 2, 999, 1000, 1712, 999_999, 1_000_000, 123_456_789_012L}) {
            assertThat(CheckCommand.count(n, "op")).isEqualTo(Words.count(n, "op"));
        }
        for (long ms : new long[] {0, 4, 5, 9, 10, 99, 100, 994, 1005, 12_345, 3_600_000}) {
            Duration d = Duration.ofMillis(ms).plusNanos(1);
            assertThat(CheckCommand.seconds(d))
                    .isEqualTo(String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9));
        }
    }
}
