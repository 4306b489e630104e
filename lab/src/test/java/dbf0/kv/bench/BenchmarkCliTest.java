package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.cli.Dbf0;
import dbf0.common.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

@Timeout(60)
class BenchmarkCliTest {

    record Run(int exitCode, String out, String err) {}

    static Run run(String... args) {
        return execute(Cli.commandLine(new Benchmark()), args);
    }

    /** {@code dbf0 bench ARGS}: through the jar's top command, as a user types it. */
    static Run runUnderDbf0(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "bench";
        System.arraycopy(args, 0, line, 1, args.length);
        return execute(Cli.commandLine(new Dbf0()), line);
    }

    private static Run execute(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static final String HELP_HINT = "see 'dbf0 bench --help'";

    /**
     * A bad argument: exit status 2, nothing on stdout, and on stderr two lines, the error and a
     * hint that ends in the pointer to --help, not the 170-line usage that would scroll the error
     * away.
     */
    static void assertShortArgumentError(Run run) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines()).as(run.err()).hasSize(2);
        assertThat(run.err().lines().toList().get(0)).startsWith("dbf0 bench: error: ");
        assertThat(run.err().lines().toList().get(1)).endsWith(HELP_HINT);
        assertThat(run.err())
                .doesNotContain("Usage:")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @Test
    void shortRunPrintsExactlyOneJsonObject() {
        Run run = run("2", "2", "concurrent", "2", "8", "0.5", "PT1S");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().strip().lines()).hasSize(1);
        assertThat(run.err().lines().reduce((a, b) -> b).orElse(""))
                .as("the last line on stderr: the run for people")
                .matches(
                        "dbf0 bench: [0-9,]+ ops/s over [0-9.]+ s \\([0-9,]+ ops\\); latency p50"
                                + " [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms; 0 errors");
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.keySet())
                .contains("set", "get", "found", "missingKey", "errors", "seconds", "ops_per_sec");
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("get").getAsLong()).isPositive();
        assertThat(json.get("found").getAsLong())
                .as("2-byte keys: some GETs find a key")
                .isPositive();
        assertThat(json.get("errors").getAsLong()).isZero();
        assertThat(json.get("seconds").getAsDouble()).isBetween(0.9, 5.0);
        // the JVM ran server and clients for about a second: some CPU, and not more than all its
        // cores
        assertThat(json.get("process_cpu_us_per_op").getAsDouble()).isPositive();
        assertThat(json.get("process_cpu_cores").getAsDouble())
                .isPositive()
                .isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors() + 0.5);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "", // nothing
                "1 1 concurrent 16 64 0.1", // six arguments
                "1 1 concurrent 16 64 0.1 PT1S extra", // eight
                "x 1 concurrent 16 64 0.1 PT1S", // not a number
                "0 1 concurrent 16 64 0.1 PT1S", // no server thread
                "1 0 concurrent 16 64 0.1 PT1S", // no client thread
                "1 1 nosuchmap 16 64 0.1 PT1S", // unknown map
                "1 1 concurrent 0 64 0.1 PT1S", // empty keys
                "1 1 concurrent 128 64 0.1 PT1S", // key too long for v1
                "1 1 concurrent 16 200 0.1 PT1S", // value too long for v1
                "1 1 concurrent 16 64 1.5 PT1S", // setFrac out of range
                "1 1 concurrent 16 64 0.1 tenseconds", // not a duration
                "1 1 concurrent 16 64 0.1 PT0S", // zero duration
                "1 1 concurrent 16 64 0.1 PT1S --port 70000", // bad port
                "1 1 concurrent 16 64 0.1 PT1S --connect nohostport",
                "1 1 concurrent 16 64 0.1 PT1S --bogus",
                "1 1 concurrent 16 64 0.1 PT1S --server-model threads",
                "1 1 concurrent 16 64 0.1 PT1S --client-mode turbo",
                "1 1 concurrent 16 64 0.1 PT1S --client-mode pipelined --pipeline 0",
                "1 1 concurrent 16 64 0.1 PT1S --client-mode batched --batch 0",
                "1 1 concurrent 16 64 0.1 PT1S --close-order whoever",
                "1 1 concurrent 16 64 0.1 PT1S --warmup soon",
                "1 1 concurrent 16 64 0.1 PT1S --client-thread-kind fibre",
                // per-op has no selector form
                "1 2 concurrent 16 64 0.1 PT1S --selector-threads 1",
                // more selectors than connections
                "1 2 concurrent 16 64 0.1 PT1S --client-mode persistent --selector-threads 3",
                "1 2 concurrent 16 64 0.1 PT1S --client-mode persistent --selector-threads -1",
                "1 2 concurrent 16 64 0.1 PT1S --client-mode pipelined --selector-threads 1 "
                        + "--order-preserving"
            })
    void badArgumentsPrintTheErrorAndAHelpHintAndExitTwo(String args) {
        String[] line = args.isEmpty() ? new String[0] : args.split(" ");
        assertShortArgumentError(run(line));
        assertShortArgumentError(runUnderDbf0(line));
    }

    @Test
    void anArgumentErrorNamesTheErrorThenTheHelpHint() {
        String[] args = {"0", "1", "concurrent", "16", "64", "0.1", "PT1S"};
        for (Run run : List.of(run(args), runUnderDbf0(args))) {
            assertShortArgumentError(run);
            assertThat(run.err().lines())
                    .containsExactly(
                            "dbf0 bench: error: serverThreads must be at least 1, got 0",
                            HELP_HINT);
        }
    }

    @Test
    void aMistypedFlagAlsoGetsPicocliSuggestions() {
        Run run = run("1", "1", "concurrent", "16", "64", "0.1", "PT1S", "--client-mod", "batched");
        assertShortArgumentError(run);
        assertThat(run.err().lines().toList().get(0)).contains("unknown option");
        assertThat(run.err().lines().toList().get(1))
                .startsWith("did you mean ")
                .contains("--client-mode");
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--server-model pool --client-mode per-op --close-order server-first",
                "--server-model virtual --client-mode persistent",
                "--server-model nio --client-mode pipelined --pipeline 8",
                "--server-model nio --client-mode batched --batch 50 --warmup PT0.2S",
                "--server-model pool --client-mode batched --batch 20 --order-preserving"
            })
    void everyModeRunsAndReportsLatencies(String flags) {
        String[] args = ("2 2 concurrent 16 64 0.5 PT1S " + flags).split(" ");
        Run run = run(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("get").getAsLong()).isPositive();
        assertThat(json.get("errors").getAsLong()).isZero();
        assertThat(json.get("p50_us").getAsLong()).isPositive();
        assertThat(json.get("p99_us").getAsLong())
                .isGreaterThanOrEqualTo(json.get("p50_us").getAsLong());
        assertThat(json.get("max_us").getAsLong())
                .isGreaterThanOrEqualTo(json.get("p999_us").getAsLong());
        assertThat(json.get("server_model").getAsString()).isEqualTo(args[8]);
        assertThat(json.get("client_mode").getAsString()).isEqualTo(args[10]);
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(strings = {"per-op", "persistent"})
    void virtualClientThreadsHoldManyConnections(String mode) {
        Run run =
                run(
                        "2",
                        "200",
                        "concurrent",
                        "16",
                        "64",
                        "0.5",
                        "PT1S",
                        "--server-model",
                        "nio",
                        "--client-mode",
                        mode,
                        "--client-thread-kind",
                        "virtual");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("client_thread_kind").getAsString()).isEqualTo("virtual");
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("get").getAsLong()).isPositive();
        assertThat(json.get("errors").getAsLong()).isZero();
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(
            strings = { // server model, server threads, connections, flags
                "nio 2 200 --client-mode persistent --selector-threads 1",
                "virtual 2 20 --client-mode pipelined --pipeline 8 --selector-threads 2",
                "nio 1 3 --client-mode batched --batch 50 --pipeline 2 --selector-threads 1",
                // a pool needs a thread per connection
                "pool 4 4 --client-mode persistent --selector-threads 1"
            })
    void selectorClientsDriveManyConnectionsFromFewThreads(String setup) {
        String[] p = setup.split(" ", 4);
        Run run =
                run(
                        (p[1]
                                        + " "
                                        + p[2]
                                        + " concurrent 16 64 0.5 PT1S --server-model "
                                        + p[0]
                                        + " "
                                        + p[3])
                                .split(" "));
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("selector_threads").getAsInt()).isPositive();
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("get").getAsLong()).isPositive();
        assertThat(json.get("errors").getAsLong()).isZero();
        assertThat(json.get("p99_us").getAsLong()).isPositive();
        assertThat(json.get("seconds").getAsDouble()).as("the run ends on time").isLessThan(4.0);
    }

    /**
     * A pool of one thread serves only its first connection: the others' requests go unanswered.
     */
    @Tag("slow") // timed benchmark run of about 1 s per case
    @Test
    void selectorClientCountsConnectionsThatNeverGetAnAnswer() {
        Run run =
                run(
                        "1",
                        "3",
                        "concurrent",
                        "16",
                        "64",
                        "0.5",
                        "PT1S",
                        "--server-model",
                        "pool",
                        "--client-mode",
                        "persistent",
                        "--selector-threads",
                        "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("set").getAsLong() + json.get("get").getAsLong()).isPositive();
        assertThat(json.get("errors").getAsLong()).as("one per unanswered connection").isEqualTo(2);
    }

    @Test
    void clientThreadKindsMakeTheThreadsTheyName() throws Exception {
        Thread platform = ClientThreadKind.PLATFORM.builder().name("p").unstarted(() -> {});
        Thread virtual = ClientThreadKind.VIRTUAL.builder().name("v").unstarted(() -> {});
        assertThat(platform.isVirtual()).isFalse();
        assertThat(platform.isDaemon()).as("a stuck client must not keep the JVM alive").isTrue();
        assertThat(virtual.isVirtual()).isTrue();
        assertThat(ClientThreadKind.parse(" Virtual ")).isEqualTo(ClientThreadKind.VIRTUAL);
        assertThat(run("--help").out()).contains("--client-thread-kind");
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @Test
    void v2ModesAcceptLongKeysAndValues() {
        Run run =
                run(
                        "1",
                        "1",
                        "concurrent",
                        "300",
                        "5000",
                        "0.5",
                        "PT1S",
                        "--client-mode",
                        "persistent");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("errors").getAsLong()).isZero();
    }

    @Test
    void unknownMapErrorNamesTheChoices() {
        assertThat(run("1", "1", "nosuchmap", "16", "64", "0.1", "PT1S").err())
                .contains("unknown map type 'nosuchmap'")
                .contains("hashtable")
                .contains("concurrent");
    }

    @Test
    void helpExitsZero() {
        Run run = run("--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("serverThreads").contains("setFrac").contains("duration");
        assertThat(run.out().lines())
                .as("--help still prints the whole usage")
                .hasSizeGreaterThan(50);
    }

    /**
     * Nothing listens on port 1: bench finds out before its clients start, and says so in one line
     * that names the address, with no JSON and no log lines.
     */
    @Test
    void nothingListeningAtConnectIsOneLineNamingTheAddress() {
        Run run =
                run("1", "2", "concurrent", "16", "64", "0.5", "PT1S", "--connect", "127.0.0.1:1");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines())
                .containsExactly(
                        "dbf0 bench: error: cannot connect to 127.0.0.1:1: Connection refused");
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(strings = {"persistent", "pipelined", "batched"})
    void poolWithFewerThreadsThanPersistentClientsWarns(String mode) {
        Run run = run("1", "2", "concurrent", "16", "64", "0.5", "PT1S", "--client-mode", mode);
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err())
                .contains(
                        "dbf0 bench: warning: the pool server has 1 thread for 2 "
                                + mode
                                + " v2 connections; a pool thread serves one connection until it"
                                + " closes, so 1 connection waits for a thread");
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.getAsJsonArray("warnings")).hasSize(1);
        assertThat(json.getAsJsonArray("warnings").get(0).getAsString()).contains("max_us");
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(
            strings = {
                "1 2 --client-mode persistent --server-model nio",
                "1 2 --client-mode persistent --server-model virtual",
                "2 2 --client-mode persistent",
                "1 2 --client-mode per-op"
            })
    void noWarningWhenEveryConnectionHasAThread(String setup) {
        String[] p = setup.split(" ", 3);
        Run run = run((p[0] + " " + p[1] + " concurrent 16 64 0.5 PT1S " + p[2]).split(" "));
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).doesNotContain("warning");
        assertThat(JsonParser.parseString(run.out()).getAsJsonObject().has("warnings")).isFalse();
    }

    @Test
    void helpNamesBothProtocolsLimits() {
        assertThat(run("--help").out())
                .doesNotContain("a v1 key/value server")
                .contains("1048576")
                .contains("65536");
    }

    @Test
    void recordsLoadedWithADataDirGoThroughTheLog(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // Reads only (setFrac 0): the log then holds exactly the loaded records.
        Run run =
                run(
                        "1",
                        "1",
                        "concurrent",
                        "8",
                        "16",
                        "0",
                        "PT0.2S",
                        "--client-mode",
                        "persistent",
                        "--records",
                        "3000",
                        "--data-dir",
                        dir.toString(),
                        "--fsync",
                        "never");
        assertThat(run.exitCode()).as(run.err()).isZero();
        try (var store =
                dbf0.kv.storage.wal.WalStore.open(
                        new dbf0.kv.storage.MapStore(
                                new java.util.concurrent.ConcurrentHashMap<>()),
                        dbf0.kv.storage.wal.WalOptions.defaults(dir))) {
            assertThat(store.recovery().records()).isEqualTo(3000);
            assertThat(store.size()).as("a restart finds every loaded record").isEqualTo(3000);
        }
    }
}
