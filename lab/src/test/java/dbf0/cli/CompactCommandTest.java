package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.cli.Cli;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.wal.WalOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dbf0 compact} against a live server: the rewrite happens and is reported, or the refusal
 * is.
 */
@Timeout(60)
class CompactCommandTest {

    private record Run(int exit, String out, String err) {}

    private static Run compact(int port) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Cli.commandLine(new CompactCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("--port", Integer.toString(port), "--wait", "30s");
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void rewritesTheLogOfARunningServer(@TempDir Path dir) throws Exception {
        ServerOptions options =
                ServerOptions.defaults().withDurability(WalOptions.defaults(dir).withRewrite(0, 0));
        try (KeyValueServer server = new KeyValueServer(options, new ConcurrentHashMap<>())) {
            server.start();
            try (KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
                for (int i = 0; i < 100; i++) {
                    client.set(ByteArrayWrapper.of(i % 3), ByteArrayWrapper.of(i));
                }
            }
            long before = server.walStore().stats().logBytes();
            Run run = compact(server.getLocalAddress().getPort());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("rewriting started", "done: ok");
            assertThat(server.walStore().stats().rewrites()).isEqualTo(1);
            assertThat(server.walStore().stats().logBytes()).isLessThan(before / 10);
        }
    }

    @Test
    void aServerWithoutALogSaysSo() throws Exception {
        try (KeyValueServer server =
                new KeyValueServer(ServerOptions.defaults(), new ConcurrentHashMap<>())) {
            server.start();
            Run run = compact(server.getLocalAddress().getPort());
            assertThat(run.exit()).isEqualTo(1);
            assertThat(run.err().lines())
                    .containsExactly(
                            "dbf0 compact: error: 127.0.0.1:"
                                    + server.getLocalAddress().getPort()
                                    + " refused: ERR this server keeps no log to rewrite: start it"
                                    + " with --data-dir");
        }
    }
}
