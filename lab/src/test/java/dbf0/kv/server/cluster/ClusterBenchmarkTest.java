package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.Benchmark;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code bench --cluster host:port} against three dbf0 nodes: it learns the slot map from the one
 * node named, and every v2 client mode (and the library client) runs with no error, which a key
 * sent to the wrong node would be (MOVED). Each node then holds keys.
 */
@Timeout(60)
class ClusterBenchmarkTest {

    @Test
    void perOpClientsAndAConnectListAreRefused() {
        for (String flags :
                new String[] {
                    "--cluster 127.0.0.1:1 --client-mode per-op",
                    "--cluster 127.0.0.1:1 --connect 127.0.0.1:2"
                }) {
            StringWriter err = new StringWriter();
            CommandLine cl = Cli.commandLine(new Benchmark());
            cl.setOut(new PrintWriter(new StringWriter(), true));
            cl.setErr(new PrintWriter(err, true));
            assertThat(cl.execute(("2 2 concurrent 16 64 0.5 PT1S " + flags).split(" ")))
                    .isEqualTo(2);
            assertThat(err.toString()).contains("--cluster");
        }
    }

    /**
     * Runs {@code bench 2 2 concurrent 16 64 0.5 PT1S --cluster 127.0.0.1:port flags}, asserting
     * that it exits 0.
     *
     * @return the JSON line it printed
     */
    static JsonObject bench(int port, String flags) {
        String[] args =
                ("2 2 concurrent 16 64 0.5 PT1S --cluster 127.0.0.1:" + port + " " + flags)
                        .split(" ");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Benchmark());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(args)).as(err.toString()).isZero();
        return JsonParser.parseString(out.toString()).getAsJsonObject();
    }

    @Tag("slow") // timed benchmark runs of about 1 s each
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode persistent",
                "--client-mode batched --batch 50 --pipeline 2",
                "--client-mode pipelined --pipeline 8 --library-client"
            })
    void benchDrivesAClusterThroughOneNode(String flags) throws Exception {
        try (LocalCluster cluster = new LocalCluster(3)) {
            JsonObject json = bench(cluster.port(1), flags);
            assertThat(json.get("set").getAsLong()).isPositive();
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("shards").getAsInt()).isEqualTo(3);
            assertThat(json.get("cluster").getAsBoolean()).isTrue();
            for (int node = 0; node < 3; node++) {
                try (RawResp c = new RawResp(cluster.port(node))) {
                    assertThat(c.call("DBSIZE"))
                            .as("node %d holds keys", node)
                            .isNotEqualTo(":0\r\n");
                }
            }
        }
    }
}
