package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** bench with --records, --key-dist, --workload: the load phase, mixes, JSON and refusals. */
@Timeout(60)
class KeyedBenchmarkTest {

    private static JsonObject ok(String... args) {
        BenchmarkCliTest.Run run = BenchmarkCliTest.run(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(json.get("errors").getAsLong()).as(run.err()).isZero();
        return json;
    }

    @Test
    void readOnlyWorkloadFindsEveryLoadedRecord() {
        JsonObject json =
                ok(
                        "1",
                        "2",
                        "concurrent",
                        "8",
                        "16",
                        "0",
                        "PT1S",
                        "--server-model",
                        "nio",
                        "--client-mode",
                        "persistent",
                        "--workload",
                        "C",
                        "--records",
                        "2000");
        assertThat(json.get("get").getAsLong()).isPositive();
        assertThat(json.get("found").getAsLong())
                .as("the load phase stored every record")
                .isEqualTo(json.get("get").getAsLong());
        assertThat(json.get("set").getAsLong()).isZero();
        assertThat(json.get("workload").getAsString()).isEqualTo("C");
        assertThat(json.get("records").getAsLong()).isEqualTo(2000);
        assertThat(json.get("key_dist").getAsString()).isEqualTo("zipfian");
        assertThat(json.get("zipf_theta").getAsDouble()).isEqualTo(0.99);
        assertThat(json.get("load").getAsString()).isEqualTo("direct");
        assertThat(json.keySet())
                .contains(
                        "hotspot_fraction",
                        "hotspot_ops_fraction",
                        "insert_frac",
                        "read_frac",
                        "update_frac",
                        "rmw_frac",
                        "insert",
                        "read_modify_write");
    }

    @Test
    void workloadDInsertsAndReadsTheLatest() {
        JsonObject json =
                ok(
                        "1",
                        "2",
                        "concurrent",
                        "8",
                        "16",
                        "0",
                        "PT1S",
                        "--server-model",
                        "nio",
                        "--client-mode",
                        "persistent",
                        "--workload",
                        "D",
                        "--records",
                        "1000");
        assertThat(json.get("insert").getAsLong()).isPositive();
        assertThat(json.get("set").getAsLong()).as("D has no updates").isZero();
        assertThat(json.get("key_dist").getAsString()).isEqualTo("latest");
        // reads of inserts claimed but not yet applied may miss, but nearly all reads find their
        // record
        assertThat(json.get("found").getAsDouble())
                .isGreaterThan(0.9 * json.get("get").getAsLong());
    }

    @ParameterizedTest
    @ValueSource(strings = {"persistent", "batched --batch 10", "pipelined --pipeline 4"})
    void workloadFCountsReadModifyWritesAsOneOperation(String mode) {
        JsonObject json =
                ok(
                        ("1 2 concurrent 8 16 0.5 PT1S --server-model nio --workload F "
                                        + "--records 500 --client-mode "
                                        + mode)
                                .split(" "));
        long rmw = json.get("read_modify_write").getAsLong();
        assertThat(rmw).isPositive();
        assertThat(json.get("set").getAsLong()).isZero();
        long operations = json.get("get").getAsLong() + rmw;
        assertThat(json.get("ops_per_sec").getAsDouble())
                .isCloseTo(
                        operations / json.get("seconds").getAsDouble(),
                        org.assertj.core.data.Percentage.withPercentage(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"uniform", "zipfian", "hotspot", "latest", "exponential"})
    void perOpModeReadsAndUpdatesWithEveryDistribution(String dist) {
        JsonObject json =
                ok(
                        "1",
                        "2",
                        "concurrent",
                        "4",
                        "16",
                        "0.5",
                        "PT1S",
                        "--records",
                        "1000",
                        "--key-dist",
                        dist);
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("found").getAsLong()).isEqualTo(json.get("get").getAsLong());
        assertThat(json.get("key_dist").getAsString()).isEqualTo(dist);
        assertThat(json.get("workload").isJsonNull()).isTrue();
    }

    @Test
    void insertFracAddsRecords() {
        JsonObject json =
                ok(
                        "1",
                        "2",
                        "concurrent",
                        "8",
                        "16",
                        "0.2",
                        "PT1S",
                        "--server-model",
                        "nio",
                        "--client-mode",
                        "batched",
                        "--batch",
                        "20",
                        "--records",
                        "1000",
                        "--insert-frac",
                        "0.3",
                        "--key-dist",
                        "hotspot",
                        "--hotspot-fraction",
                        "0.1",
                        "--hotspot-ops-fraction",
                        "0.9");
        assertThat(json.get("insert").getAsLong()).isPositive();
        assertThat(json.get("set").getAsLong()).isPositive();
        assertThat(json.get("insert_frac").getAsDouble()).isEqualTo(0.3);
        assertThat(json.get("hotspot_fraction").getAsDouble()).isEqualTo(0.1);
        assertThat(json.get("hotspot_ops_fraction").getAsDouble()).isEqualTo(0.9);
    }

    @Test
    void withConnectTheRecordsAreLoadedOverV2() throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        ServerOptions options =
                ServerOptions.defaults()
                        .withBindAddress(new InetSocketAddress("127.0.0.1", 0))
                        .withModel(ServerModel.NIO)
                        .withThreads(1);
        try (KeyValueServer server = new KeyValueServer(options, map)) {
            server.start();
            InetSocketAddress address = server.getLocalAddress();
            JsonObject json =
                    ok(
                            "1",
                            "2",
                            "concurrent",
                            "8",
                            "16",
                            "0",
                            "PT1S",
                            "--client-mode",
                            "persistent",
                            "--workload",
                            "C",
                            "--records",
                            "2500",
                            "--connect",
                            "127.0.0.1:" + address.getPort());
            assertThat(map).hasSize(2500);
            assertThat(json.get("found").getAsLong()).isEqualTo(json.get("get").getAsLong());
            assertThat(json.get("load").getAsString()).isEqualTo("v2-batched");
        }
    }

    @Test
    void seedRunsKeepTheirJson() {
        JsonObject json = ok("1", "1", "concurrent", "16", "8", "0.5", "PT1S");
        assertThat(json.has("records")).isFalse();
        assertThat(json.has("insert")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "--key-dist zipfian", // no records to choose among
                "--insert-frac 0.1", // the same
                "--records 0",
                "--records 100 --key-dist gaussian",
                "--records 100 --key-dist zipfian --zipf-theta 1",
                "--records 100 --key-dist hotspot --hotspot-fraction 0",
                "--records 100 --insert-frac 0.6", // setFrac 0.5 + 0.6 > 1
                "--records 100 --insert-frac 0.1", // per-op has no inserts
                "--workload F", // nor read-modify-writes
                "--workload E --client-mode persistent",
                "--workload A --insert-frac 0.1 --client-mode persistent",
                "--records 70000 --client-mode persistent", // 2-byte keys hold 65,536
                "--workload C --client-mode persistent --history-keys 8",
                "--workload C --client-mode persistent --history h.jsonl --connect"
                        + " 127.0.0.1:1,127.0.0.1:2"
            })
    void badKeyedArgumentsExitTwo(String flags) {
        BenchmarkCliTest.Run run =
                BenchmarkCliTest.run(("1 1 concurrent 2 8 0.5 PT1S " + flags).split(" "));
        BenchmarkCliTest.assertShortArgumentError(run);
    }

    @Test
    void helpNamesEveryKeyedFlag() {
        assertThat(BenchmarkCliTest.run("--help").out())
                .contains(
                        "--records",
                        "--key-dist",
                        "--zipf-theta",
                        "--hotspot-fraction",
                        "--hotspot-ops-fraction",
                        "--insert-frac",
                        "--workload",
                        "zipfian",
                        "exponential");
    }
}
