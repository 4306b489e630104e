package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.cli.Cli;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.server.V1;
import dbf0.kv.storage.MapBackends;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs the standalone server as a real process, talks to it, and stops it with SIGTERM. */
@Timeout(60)
class ServeCommandTest {

    @Tag("slow") // a child JVM, stopped with SIGTERM
    @Test
    void servesUntilSigtermThenStopsCleanly() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process =
                new ProcessBuilder(
                                List.of(
                                        java,
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        ServeCommand.class.getName(),
                                        "--port",
                                        "0",
                                        "--threads",
                                        "2",
                                        "--map",
                                        "concurrent"))
                        .redirectErrorStream(true)
                        .start();
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String first = out.readLine();
            Matcher m =
                    Pattern.compile("listening on .*?:(\\d+) ").matcher(first == null ? "" : first);
            assertThat(m.find()).as("first line: %s", first).isTrue();
            assertThat(first)
                    .startsWith("dbf0 server listening on 127.0.0.1:")
                    .endsWith(
                            " (map concurrent, in memory only, nio model, 2 threads); Ctrl-C to"
                                    + " stop");
            InetSocketAddress address =
                    new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1)));

            V1.set(address, ByteArrayWrapper.of(1), ByteArrayWrapper.of(2));
            assertThat(V1.get(address, ByteArrayWrapper.of(1))).isEqualTo(ByteArrayWrapper.of(2));

            process.toHandle().destroy(); // SIGTERM, leaving our end of its stdout open
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
            String rest = String.join("\n", out.lines().toList());
            assertThat(rest)
                    .contains(
                            "stopped after 2 connections (0 dropped for errors); map held 1 entry")
                    .doesNotContain("Exception");
            assertThat(process.exitValue()).isEqualTo(143); // 128 + SIGTERM, after the hook ran
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * The LSM store's start-up says what it replayed in the server's own words, before the banner:
     * no timestamped log line ahead of them.
     */
    @Tag("slow") // a child JVM
    @Test
    void theLsmServerSaysWhatItOpenedThenWhereItListens(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("lsm");
        Process process =
                new ProcessBuilder(
                                List.of(
                                        Path.of(System.getProperty("java.home"), "bin", "java")
                                                .toString(),
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        ServeCommand.class.getName(),
                                        "--port",
                                        "0",
                                        "--threads",
                                        "1",
                                        "--store",
                                        "lsm",
                                        "--data-dir",
                                        dir.toString()))
                        .redirectErrorStream(true)
                        .start();
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine())
                    .isEqualTo(
                            "dbf0 server: lsm store opened: 0 tables, 0 logs replayed (0 records)");
            assertThat(out.readLine())
                    .startsWith("dbf0 server listening on 127.0.0.1:")
                    .endsWith(
                            " (lsm store in "
                                    + dir
                                    + ", fsync always, nio model, 1 thread); Ctrl-C to stop");
        } finally {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void byDefaultItServesManyMoreConnectionsAtOnceThanItHasThreads() throws Exception {
        ServeCommand command = new ServeCommand();
        Cli.commandLine(command).parseArgs("--port", "0");
        ServerOptions options = command.serverOptions();
        assertThat(options.model()).isEqualTo(ServerModel.NIO);
        assertThat(options.threads()).isEqualTo(4);
        assertThat(options.bindAddress().getAddress().isLoopbackAddress()).isTrue();
        int n = 64; // a pool of 4 would leave connection 5 waiting for one of the first 4 to close
        byte[] ping = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
        List<Socket> open = new ArrayList<>();
        try (KeyValueServer server =
                new KeyValueServer(options, MapBackends.create("concurrent"))) {
            server.start();
            for (int i = 0; i < n; i++) {
                Socket socket = new Socket();
                open.add(socket);
                socket.connect(server.getLocalAddress(), 5_000);
                socket.setSoTimeout(5_000);
                socket.getOutputStream().write(ping);
            }
            for (Socket socket : open) { // every one answered while all stay open
                assertThat(socket.getInputStream().readNBytes(7))
                        .isEqualTo("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            assertThat(server.getOpenConnections()).isEqualTo(n);
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
    }

    @Test
    void helpSaysTheDefaultModelIsNio() {
        String usage = Cli.commandLine(new ServeCommand()).getUsageMessage();
        assertThat(usage).containsPattern("--server-model=MODEL[\\s\\S]*\\(default: nio\\)");
    }

    @Test
    void badMapIsAUsageError() {
        var cl = Cli.commandLine(new ServeCommand());
        cl.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
        assertThat(cl.execute("--map", "nope")).isEqualTo(2);
    }

    @Test
    void aBadClusterNodeListIsRefusedWithTheReason() {
        var cl = Cli.commandLine(new ServeCommand());
        java.io.StringWriter err = new java.io.StringWriter();
        cl.setErr(new java.io.PrintWriter(err));
        assertThat(cl.execute("--cluster-nodes", "127.0.0.1:7001,nohost")).isEqualTo(2);
        assertThat(err.toString()).contains("'nohost' is not host:port");
        err.getBuffer().setLength(0);
        // The list is fine, but this server (port 1) is not in it: it does not start.
        assertThat(cl.execute("--port", "1", "--cluster-nodes", "127.0.0.1:7001,127.0.0.1:7002"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("127.0.0.1:1 is none of the --cluster-nodes");
    }
}
