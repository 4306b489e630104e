package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redis's own tools against three dbf0 nodes in this JVM: {@code redis-cli --cluster check}, {@code
 * redis-cli -c} following MOVED, and {@code redis-benchmark --cluster}. Skipped where the tools are
 * not installed.
 */
@Tag("slow") // drives the external redis-cli and redis-benchmark programs
@Timeout(120)
public class ClusterToolsTest {

    static final boolean TOOLS = onPath("redis-cli") && onPath("redis-benchmark");

    /** Why a test that needs them skips, and the one command that installs them. */
    public static final String NO_TOOLS =
            "redis-cli/redis-benchmark not installed: `sudo bash scripts/install-test-tools.sh`"
                    + " installs them (Debian's redis-tools)";

    private static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        if (TOOLS) {
            cluster = new LocalCluster(3);
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void toolsInstalled() {
        assumeTrue(TOOLS, NO_TOOLS);
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Runs a tool; its exit code and its output, stderr included. */
    record Run(int exit, String output) {}

    static Run run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(100, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    static Run cli(int port, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", "" + port));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    static Run check(int port) throws Exception {
        return run("redis-cli", "--cluster", "check", "127.0.0.1:" + port);
    }

    @Test
    void clusterCheckPasses() throws Exception {
        Run check = check(cluster.port(0));
        assertThat(check.output())
                .as(check.output())
                .contains("[OK] All nodes agree about slots configuration.")
                .contains("[OK] All 16384 slots covered.")
                .doesNotContain("[ERR]")
                .doesNotContain("[WARNING]");
        assertThat(check.exit()).isZero();
    }

    @Test
    void redisCliFollowsMoved() throws Exception {
        int port = cluster.port(0);
        for (int i = 0; i < 30; i++) {
            assertThat(cli(port, "-c", "SET", "moved:" + i, "v" + i).output().strip())
                    .isEqualTo("OK");
        }
        for (int i = 0; i < 30; i++) {
            assertThat(cli(cluster.port(2), "-c", "GET", "moved:" + i).output().strip())
                    .isEqualTo("v" + i);
        }
        // Without -c the node answers MOVED itself: some of the keys live elsewhere.
        long moved = 0;
        for (int i = 0; i < 30; i++) {
            if (cli(port, "GET", "moved:" + i).output().startsWith("MOVED ")) {
                moved++;
            }
        }
        assertThat(moved).isBetween(1L, 29L);
    }

    @Test
    void redisBenchmarkClusterRuns() throws Exception {
        Run bench =
                run(
                        "redis-benchmark",
                        "--cluster",
                        "-h",
                        "127.0.0.1",
                        "-p",
                        "" + cluster.port(1),
                        "-t",
                        "set,get",
                        "-n",
                        "10000",
                        "-q");
        assertThat(bench.output())
                .as(bench.output())
                .contains("SET: ")
                .contains("GET: ")
                .doesNotContain("rror");
        assertThat(bench.exit()).isZero();
    }
}
