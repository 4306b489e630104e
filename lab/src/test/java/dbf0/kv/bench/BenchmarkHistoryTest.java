package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.kv.check.CheckResult;
import dbf0.kv.check.Dbf0HistoryFormat;
import dbf0.kv.check.KvModel;
import dbf0.kv.check.LinearizabilityChecker;
import dbf0.kv.check.Operation;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench --history} in every client mode, on a thread-safe map: the file must check
 * linearizable.
 */
@Timeout(90)
class BenchmarkHistoryTest {

    @TempDir Path tmp;

    private static CheckResult<?, ?> check(Path file) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return LinearizabilityChecker.check(
                    Dbf0HistoryFormat.parse(in, file.toString()), Duration.ofSeconds(30));
        }
    }

    private static List<Operation<KvModel.Input, KvModel.Output>> operations(Path file)
            throws Exception {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return new ArrayList<>(Dbf0HistoryFormat.parse(in, file.toString()).operations());
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode per-op",
                "--client-mode per-op --close-order server-first",
                "--client-mode persistent",
                "--client-mode pipelined --pipeline 4",
                "--client-mode batched --batch 8 --pipeline 2",
                "--client-mode pipelined --pipeline 4 --selector-threads 1"
            })
    void everyClientModeRecordsAHistoryThatChecksLinearizable(String mode) throws Exception {
        Path file = tmp.resolve("h.jsonl");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "2",
                                "3",
                                "concurrent",
                                "4",
                                "16",
                                "0.3",
                                "1s",
                                "--server-model",
                                "nio",
                                "--history",
                                file.toString(),
                                "--history-keys",
                                "32",
                                "--history-limit",
                                "3000"));
        args.addAll(List.of(mode.split(" ")));
        BenchmarkCliTest.Run run = BenchmarkCliTest.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        long recorded = json.get("history_ops").getAsLong();
        assertThat(recorded).isPositive().isLessThanOrEqualTo(3000);
        if (json.get("history_truncated").getAsBoolean()) {
            // admissions are handed out 64 at a time: each client may leave part of its last block
            // unused
            assertThat(recorded).isGreaterThan(3000 - 3 * 64);
        }

        List<Operation<KvModel.Input, KvModel.Output>> ops = operations(file);
        assertThat(ops).hasSize((int) recorded);
        assertThat(ops).extracting(Operation::client).allMatch(c -> c >= 0 && c < 3);
        // 32 keys and a distinct value per SET: reads find values, so the history can be wrong.
        assertThat(ops)
                .filteredOn(op -> !op.isPending() && Boolean.TRUE.equals(op.output().found()))
                .isNotEmpty();
        if (mode.contains("per-op")) {
            assertThat(ops)
                    .filteredOn(op -> op.input().kind() == KvModel.Kind.PUT)
                    .as("a v1 SET has no reply: pending")
                    .allMatch(Operation::isPending);
        }
        CheckResult<?, ?> result = check(file);
        assertThat(result.verdict())
                .as(result.toString())
                .isEqualTo(CheckResult.Verdict.LINEARIZABLE);
    }

    /**
     * Keyed workloads: the load phase is in the history (as client clientThreads), and every write
     * of the run writes a value of its own, so reads of the 40 records can be told apart.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode persistent --workload A",
                "--client-mode batched --batch 4 --workload F",
                "--client-mode pipelined --pipeline 4 --workload D",
                "--client-mode per-op --key-dist zipfian"
            })
    void keyedWorkloadsRecordAHistoryThatChecksLinearizable(String mode) throws Exception {
        Path file = tmp.resolve("h.jsonl");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "2",
                                "3",
                                "concurrent",
                                "8",
                                "16",
                                "0.5",
                                "PT0.5S",
                                "--server-model",
                                "nio",
                                "--records",
                                "40",
                                "--history",
                                file.toString(),
                                "--history-limit",
                                "3000"));
        args.addAll(List.of(mode.split(" ")));
        BenchmarkCliTest.Run run = BenchmarkCliTest.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isZero();

        List<Operation<KvModel.Input, KvModel.Output>> ops = operations(file);
        assertThat(ops)
                .filteredOn(op -> op.client() == 3)
                .as("the load phase, one SET per record")
                .hasSize(40)
                .allMatch(op -> op.input().kind() == KvModel.Kind.PUT && !op.isPending());
        assertThat(ops).extracting(Operation::client).allMatch(c -> c >= 0 && c <= 3);
        List<Operation<KvModel.Input, KvModel.Output>> writes =
                ops.stream().filter(op -> op.input().kind() == KvModel.Kind.PUT).toList();
        assertThat(writes).as("the run writes").hasSizeGreaterThan(40);
        assertThat(
                        writes.stream()
                                .map(op -> op.input().key() + "=" + op.input().value())
                                .distinct()
                                .count())
                .as("no two writes of a key write the same value")
                .isEqualTo(writes.size());
        assertThat(ops)
                .filteredOn(op -> !op.isPending() && Boolean.TRUE.equals(op.output().found()))
                .isNotEmpty();
        CheckResult<?, ?> result = check(file);
        assertThat(result.verdict())
                .as(result.toString())
                .isEqualTo(CheckResult.Verdict.LINEARIZABLE);
    }

    /** The same check against a server elsewhere, where the records are loaded in v2 batches. */
    @Test
    void aKeyedHistoryOverConnectIncludesTheBatchedLoad() throws Exception {
        Path file = tmp.resolve("h.jsonl");
        ServerOptions options = ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(1);
        try (KeyValueServer server = new KeyValueServer(options, new ConcurrentHashMap<>())) {
            server.start();
            BenchmarkCliTest.Run run =
                    BenchmarkCliTest.run(
                            "1",
                            "2",
                            "concurrent",
                            "8",
                            "16",
                            "0.5",
                            "PT0.5S",
                            "--client-mode",
                            "persistent",
                            "--workload",
                            "A",
                            "--records",
                            "1500",
                            "--history",
                            file.toString(),
                            "--connect",
                            "127.0.0.1:" + server.getLocalAddress().getPort());
            assertThat(run.exitCode()).as(run.err()).isZero();
        }
        List<Operation<KvModel.Input, KvModel.Output>> ops = operations(file);
        assertThat(ops).filteredOn(op -> op.client() == 2).hasSize(1500);
        CheckResult<?, ?> result = check(file);
        assertThat(result.verdict())
                .as(result.toString())
                .isEqualTo(CheckResult.Verdict.LINEARIZABLE);
    }

    @Test
    void historyFlagsAreValidated() {
        assertThat(
                        BenchmarkCliTest.run(
                                        "1",
                                        "1",
                                        "concurrent",
                                        "1",
                                        "8",
                                        "0.5",
                                        "1s",
                                        "--history-keys",
                                        "300",
                                        "--history",
                                        tmp.resolve("x").toString())
                                .exitCode())
                .as("300 keys do not fit in one byte")
                .isEqualTo(2);
        assertThat(
                        BenchmarkCliTest.run(
                                        "1",
                                        "1",
                                        "concurrent",
                                        "4",
                                        "8",
                                        "0.5",
                                        "1s",
                                        "--history-limit",
                                        "-1")
                                .exitCode())
                .isEqualTo(2);
    }

    @Test
    void withoutHistoryTheJsonHasNoHistoryFields() {
        BenchmarkCliTest.Run run =
                BenchmarkCliTest.run("1", "1", "concurrent", "4", "8", "0.5", "PT0.3S");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(JsonParser.parseString(run.out()).getAsJsonObject().keySet())
                .doesNotContain("history_ops");
    }
}
