package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dbf0.kv.server.cluster.ClusterToolsTest;
import dbf0.kv.storage.MapBackends;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real redis-cli and redis-benchmark (Debian's redis-tools, installed by .ci/run and
 * scripts/install-test-tools.sh) drive a dbf0 server on loopback. Skipped, with the reason, where
 * the tools are not installed.
 */
@Tag("slow") // drives the external redis-cli and redis-benchmark programs
@Timeout(120)
class RedisToolsTest {

    private static KeyValueServer server;
    private static String port;

    private static final boolean TOOLS = onPath("redis-cli") && onPath("redis-benchmark");

    @BeforeAll
    static void start() throws Exception {
        if (!TOOLS) {
            return;
        }
        server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(2),
                        MapBackends.create("concurrent"));
        server.start();
        port = Integer.toString(server.getLocalAddress().getPort());
    }

    // Per test, not in @BeforeAll: an assumption there makes Surefire report "Tests run: 0"
    // rather than each test skipped with this reason.
    @BeforeEach
    void toolsInstalled() {
        assumeTrue(TOOLS, ClusterToolsTest.NO_TOOLS);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Runs a tool against the server; returns its stdout (stderr appended). */
    static String run(byte[] stdin, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (stdin != null) {
            p.getOutputStream().write(stdin);
        }
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }

    static String cli(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", port));
        command.addAll(List.of(args));
        return run(null, command.toArray(String[]::new)).strip();
    }

    @Test
    void redisCliCommands() throws Exception {
        assertThat(cli("PING")).isEqualTo("PONG");
        assertThat(cli("SET", "greeting", "hello world")).isEqualTo("OK");
        assertThat(cli("GET", "greeting")).isEqualTo("hello world");
        assertThat(cli("EXISTS", "greeting", "nope")).isEqualTo("1");
        assertThat(cli("DEL", "greeting", "nope")).isEqualTo("1");
        assertThat(cli("GET", "greeting"))
                .isEmpty(); // nil prints as an empty line when not on a terminal
        assertThat(cli("INFO"))
                .contains("# Server")
                .contains("# Clients")
                .contains("# Memory")
                .contains("# Stats");
        assertThat(cli("NOSUCHCOMMAND", "x")).contains("ERR unknown command 'NOSUCHCOMMAND'");
        assertThat(cli("SET", "k", "v", "EX", "10")).contains("ERR syntax error");
    }

    @Test
    void redisCliScansEveryKeyAndByPattern() throws Exception {
        for (int i = 0; i < 200; i++) {
            cli("SET", "scan:k" + i, "v");
        }
        cli("SET", "scan:other", "v");
        List<String> all = List.of(cli("--scan").split("\n"));
        for (int i = 0; i < 200; i++) {
            assertThat(all).contains("scan:k" + i);
        }
        List<String> matched = List.of(cli("--scan", "--pattern", "scan:k1*").split("\n"));
        assertThat(matched).hasSize(111).allMatch(k -> k.startsWith("scan:k1")); // 1, 1x, 1xx
        assertThat(cli("SCAN", "0", "TYPE", "list")).contains("holds only string values");
    }

    @Test
    void redisCliKeys() throws Exception {
        for (String key : new String[] {"keys:a", "keys:b", "keys:ab", "keys:*"}) {
            assertThat(cli("SET", key, "v")).isEqualTo("OK");
        }
        assertThat(cli("KEYS", "keys:?").split("\n"))
                .containsExactlyInAnyOrder("keys:a", "keys:b", "keys:*");
        assertThat(cli("KEYS", "keys:\\*")).isEqualTo("keys:*");
        assertThat(cli("KEYS", "keys:[ab]?")).isEqualTo("keys:ab");
        assertThat(cli("KEYS", "nothing:*")).isEmpty(); // an empty array prints nothing
        assertThat(cli("KEYS")).isEqualTo("ERR wrong number of arguments for 'keys' command");
    }

    @Test
    void redisCliPipeMode() throws Exception {
        StringBuilder commands = new StringBuilder();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            String key = "pipe:" + i;
            String value = "value-" + i;
            commands.append("*3\r\n$3\r\nSET\r\n$")
                    .append(key.length())
                    .append("\r\n")
                    .append(key)
                    .append("\r\n$")
                    .append(value.length())
                    .append("\r\n")
                    .append(value)
                    .append("\r\n");
        }
        String out =
                run(
                        commands.toString().getBytes(StandardCharsets.UTF_8),
                        "redis-cli",
                        "-h",
                        "127.0.0.1",
                        "-p",
                        port,
                        "--pipe");
        assertThat(out).contains("errors: 0, replies: " + n);
        assertThat(cli("GET", "pipe:4999")).isEqualTo("value-4999");
    }

    @Test
    void redisBenchmarkWithAndWithoutPipelining() throws Exception {
        for (String pipeline : new String[] {"1", "16"}) {
            String out =
                    run(
                            null,
                            "redis-benchmark",
                            "-h",
                            "127.0.0.1",
                            "-p",
                            port,
                            "-t",
                            "ping,set,get",
                            "-n",
                            "20000",
                            "-c",
                            "10",
                            "-P",
                            pipeline,
                            "-q");
            Matcher m =
                    Pattern.compile("^(\\S+): ([0-9.]+) requests per second", Pattern.MULTILINE)
                            .matcher(out);
            List<String> tests = new ArrayList<>();
            while (m.find()) {
                tests.add(m.group(1));
                assertThat(Double.parseDouble(m.group(2)))
                        .as("%s with -P %s", m.group(1), pipeline)
                        .isPositive();
            }
            assertThat(tests).as(out).contains("SET", "GET").anyMatch(t -> t.startsWith("PING"));
            assertThat(out).doesNotContain("ERR").doesNotContain("Error");
        }
    }
}
