package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.cli.Cli;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.WalOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dbf0 compact} against a live server: the rewrite (or a B+tree's vacuum) happens and is
 * reported, or the refusal is.
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

    private static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void vacuumsTheFileOfABTreeServer(@TempDir Path dir) throws Exception {
        ServerOptions options =
                ServerOptions.defaults()
                        .withBtree(
                                BTreeOptions.defaults(dir)
                                        .withPageSize(1024)
                                        .withBufferPoolBytes(256 << 10)
                                        .withFsync(FsyncPolicy.NEVER));
        try (KeyValueServer server = new KeyValueServer(options)) {
            server.start();
            try (KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
                for (int i = 0; i < 2000; i++) {
                    client.set(key(i), new ByteArrayWrapper(new byte[300]));
                }
                for (int i = 0; i < 2000; i++) {
                    if (i % 10 != 0) {
                        client.delete(key(i));
                    }
                }
            }
            long before = server.btreeStore().fileBytes();
            Run run = compact(server.getLocalAddress().getPort());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out())
                    .contains("vacuum started", "done: ok: vacuumed", "200 keys", "tree's file");
            assertThat(server.btreeStore().fileBytes()).isLessThan(before / 5);
            assertThat(Files.size(dir.resolve("btree.db")))
                    .isEqualTo(server.btreeStore().fileBytes());
            try (KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
                for (int i = 0; i < 2000; i += 10) {
                    assertThat(client.get(key(i))).as("key %d", i).isNotNull();
                }
            }
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
