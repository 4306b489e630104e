package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code bench --connect a,b,c}: every client mode spreads its keys over the servers. */
@Timeout(60)
class ShardedBenchmarkTest {

    /**
     * Starts three nio servers on loopback, each over its own map; returns their --connect list.
     */
    private static String startThreeServers(
            List<Map<ByteArrayWrapper, ByteArrayWrapper>> maps, List<KeyValueServer> servers)
            throws IOException {
        for (int i = 0; i < 3; i++) {
            Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
            KeyValueServer server = new KeyValueServer(oneNioThread(), map);
            server.start();
            maps.add(map);
            servers.add(server);
        }
        return servers.stream()
                .map(s -> "127.0.0.1:" + s.getLocalAddress().getPort())
                .collect(Collectors.joining(","));
    }

    private static ServerOptions oneNioThread() {
        return ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(1);
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode per-op",
                "--client-mode persistent",
                "--client-mode pipelined --pipeline 8",
                "--client-mode batched --batch 50 --pipeline 2",
                "--client-mode batched --batch 50 --pipeline 2 --library-client",
                "--client-mode pipelined --pipeline 8 --library-client"
            })
    void everyClientModeSpreadsKeysOverThreeServers(String flags) throws Exception {
        List<Map<ByteArrayWrapper, ByteArrayWrapper>> maps = new ArrayList<>();
        List<KeyValueServer> servers = new ArrayList<>();
        try {
            String connect = startThreeServers(maps, servers);
            String[] args =
                    ("2 2 concurrent 16 64 0.5 PT1S --connect " + connect + " " + flags).split(" ");
            BenchmarkCliTest.Run run = BenchmarkCliTest.run(args);
            assertThat(run.exitCode()).as(run.err()).isZero();
            JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
            assertThat(json.get("set").getAsLong()).isPositive();
            assertThat(json.get("get").getAsLong()).isPositive();
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("shards").getAsInt()).isEqualTo(3);
            for (int s = 0; s < 3; s++) {
                assertThat(maps.get(s)).as("server %d got SETs", s).isNotEmpty();
                for (ByteArrayWrapper key : maps.get(s).keySet()) {
                    assertThat(ShardedKeyValueClient.shardFor(key, 3)).isEqualTo(s);
                }
            }
        } finally {
            servers.forEach(KeyValueServer::close);
        }
    }

    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(strings = {"", "--library-client"})
    void oneServerThroughTheShardedClientsAnswersEveryOperation(String flags) throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        try (KeyValueServer server = new KeyValueServer(oneNioThread(), map)) {
            server.start();
            String args =
                    "1 2 concurrent 16 64 0.5 PT1S --client-mode batched --batch 50 --pipeline 2 "
                            + "--sharded-client --connect 127.0.0.1:"
                            + server.getLocalAddress().getPort()
                            + " "
                            + flags;
            BenchmarkCliTest.Run run = BenchmarkCliTest.run(args.trim().split(" "));
            assertThat(run.exitCode()).as(run.err()).isZero();
            JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("shards").getAsInt()).isEqualTo(1);
            assertThat(json.get("set").getAsLong()).isPositive();
            assertThat(json.get("get").getAsLong()).isPositive();
            assertThat(map).isNotEmpty();
        }
    }

    /**
     * A keyed workload over three servers: each record is loaded into the server its key is placed
     * on, so every read finds its record, and workload F's read-modify-writes and D's inserts are
     * counted as such.
     */
    @Tag("slow") // timed benchmark run of about 1 s per case
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode per-op --key-dist zipfian",
                "--client-mode persistent --workload C",
                "--client-mode batched --batch 20 --workload F",
                "--client-mode pipelined --pipeline 4 --workload D",
                "--client-mode batched --batch 20 --workload F --library-client"
            })
    void keyedWorkloadsLoadEachRecordIntoItsServer(String flags) throws Exception {
        List<Map<ByteArrayWrapper, ByteArrayWrapper>> maps = new ArrayList<>();
        List<KeyValueServer> servers = new ArrayList<>();
        try {
            String connect = startThreeServers(maps, servers);
            List<String> args =
                    new ArrayList<>(
                            List.of(
                                    "2",
                                    "2",
                                    "concurrent",
                                    "8",
                                    "16",
                                    "0.5",
                                    "PT1S",
                                    "--connect",
                                    connect,
                                    "--records",
                                    "3000"));
            args.addAll(List.of(flags.split(" ")));
            BenchmarkCliTest.Run run = BenchmarkCliTest.run(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(run.err()).isZero();
            JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("shards").getAsInt()).isEqualTo(3);
            assertThat(json.get("records").getAsLong()).isEqualTo(3000);
            assertThat(json.get("get").getAsLong()).isPositive();
            // D reads the latest inserts, which may not have landed yet
            if (!flags.contains("--workload D")) {
                assertThat(json.get("found").getAsLong())
                        .as("every read finds its record")
                        .isEqualTo(json.get("get").getAsLong());
            }
            if (flags.contains("--workload F")) {
                assertThat(json.get("read_modify_write").getAsLong()).isPositive();
            }
            if (flags.contains("--workload D")) {
                assertThat(json.get("insert").getAsLong()).isPositive();
            }
            int loaded = 0;
            for (int s = 0; s < 3; s++) {
                assertThat(maps.get(s)).as("server %d got records", s).isNotEmpty();
                for (ByteArrayWrapper key : maps.get(s).keySet()) {
                    assertThat(ShardedKeyValueClient.shardFor(key, 3)).isEqualTo(s);
                }
                loaded += maps.get(s).size();
            }
            assertThat(loaded).isGreaterThanOrEqualTo(3000);
        } finally {
            servers.forEach(KeyValueServer::close);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // not recorded
                "--connect 127.0.0.1:1,127.0.0.1:2 --client-mode persistent --history h.jsonl",
                "--connect 127.0.0.1:1 --sharded-client --client-mode batched --history h.jsonl",
                "--connect 127.0.0.1:1,127.0.0.1:2 --client-mode persistent --selector-threads 1",
                "--connect 127.0.0.1:1,127.0.0.1:2 --client-mode batched --order-preserving",
                "--connect 127.0.0.1:1, --client-mode batched", // empty entry
                "--sharded-client --client-mode batched", // nothing to connect to
                "--connect 127.0.0.1:1 --client-mode batched --library-client"
            }) // one server, not sharded
    void unsupportedShardedSetupsAreRefused(String flags) {
        BenchmarkCliTest.Run run =
                BenchmarkCliTest.run(("1 2 concurrent 16 64 0.1 PT1S " + flags).split(" "));
        BenchmarkCliTest.assertShortArgumentError(run);
    }
}
