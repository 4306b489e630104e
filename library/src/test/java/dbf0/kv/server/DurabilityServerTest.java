package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.client.ServerErrorException;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalLimits;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalStore;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The log seen through the server: error replies on a failing disk, INFO persistence, BGREWRITEAOF,
 * restart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DurabilityServerTest {

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void aFailingDiskAnswersErrorsAndReadsGoOn(ServerModel model) throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions wal = WalOptions.defaults(Path.of("sim")).withRewrite(0, 0);
        try (WalStore store =
                        WalStore.open(new MapStore(new ConcurrentHashMap<>()), wal, disk.mount());
                KeyValueServer server =
                        new KeyValueServer(ServerOptions.defaults().withModel(model), store)) {
            server.start();
            try (KeyValueClient v2 = KeyValueClient.connect(server.getLocalAddress());
                    Resp resp = new Resp(server.getLocalAddress())) {
                v2.set(b("a"), b("1"));
                assertThat(resp.call("SET", "b", "2")).isEqualTo("+OK");

                disk.failNext(SimulatedDirectory.Op.FORCE, 1);
                assertThatThrownBy(() -> v2.set(b("c"), b("3")))
                        .isInstanceOf(ServerErrorException.class)
                        .hasMessageContaining("not stored");
                disk.failNext(SimulatedDirectory.Op.WRITE, 1);
                assertThat(resp.call("SET", "d", "4")).startsWith("-ERR not stored");
                disk.failNext(SimulatedDirectory.Op.WRITE, 1);
                assertThat(resp.call("DEL", "a")).startsWith("-ERR not stored");

                assertThat(v2.get(b("a"))).isEqualTo(b("1"));
                assertThat(v2.get(b("c"))).isNull();
                assertThat(resp.call("GET", "b")).isEqualTo("2");
                assertThat(resp.call("GET", "d")).isEqualTo("(nil)");
                v2.set(b("e"), b("5")); // the store went on after each failure
                assertThat(resp.call("INFO", "persistence"))
                        .contains(
                                "aof_enabled:1",
                                "dbf0_fsync_policy:always",
                                "aof_last_write_status:ok");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void bgrewriteaofRewritesAndARestartReplays(ServerModel model, @TempDir Path dir)
            throws Exception {
        ServerOptions options =
                ServerOptions.defaults()
                        .withModel(model)
                        .withDurability(
                                WalOptions.defaults(dir)
                                        .withFsync(FsyncPolicy.ALWAYS)
                                        .withRewrite(0, 0));
        try (KeyValueServer server = new KeyValueServer(options, new ConcurrentHashMap<>())) {
            server.start();
            try (Resp resp = new Resp(server.getLocalAddress())) {
                for (int i = 0; i < 200; i++) {
                    assertThat(resp.call("SET", "k" + (i % 10), "v" + i)).isEqualTo("+OK");
                }
                assertThat(resp.call("DEL", "k0")).isEqualTo(":1");
                long before = server.walStore().stats().logBytes();
                assertThat(resp.call("BGREWRITEAOF"))
                        .isEqualTo("+Background append only file rewriting started");
                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> resp.call("INFO", "persistence").contains("dbf0_rewrites:1"));
                String info = resp.call("INFO", "persistence");
                assertThat(info)
                        .contains("aof_last_bgrewrite_status:ok", "aof_rewrite_in_progress:0");
                assertThat(server.walStore().stats().logBytes()).isLessThan(before / 5);
            }
        }
        try (KeyValueServer server = new KeyValueServer(options, new ConcurrentHashMap<>())) {
            server.start();
            assertThat(server.walStore().recovery().records()).isEqualTo(9);
            try (Resp resp = new Resp(server.getLocalAddress())) {
                assertThat(resp.call("GET", "k9")).isEqualTo("v199");
                assertThat(resp.call("GET", "k0")).isEqualTo("(nil)");
                assertThat(resp.call("DBSIZE")).isEqualTo(":9");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void pipelinedWritesFromOneConnectionShareAnFsyncAndAnswerInOrder(ServerModel model)
            throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions wal = WalOptions.defaults(Path.of("sim")).withRewrite(0, 0);
        try (WalStore store =
                        WalStore.open(new MapStore(new ConcurrentHashMap<>()), wal, disk.mount());
                KeyValueServer server =
                        new KeyValueServer(ServerOptions.defaults().withModel(model), store)) {
            server.start();
            int n = 500;
            // The whole pipeline leaves in one write (about 8 KiB, one loopback segment), so the
            // server decodes it in a few reads however the machine is loaded; a client library
            // flushing per call would make the fsync count depend on scheduling.
            ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
            pipeline.writeBytes(RawV2.PREAMBLE);
            for (int i = 0; i < n; i++) {
                pipeline.writeBytes(
                        RawV2.frame(
                                RawV2.set("k" + i, ("v" + i).getBytes(StandardCharsets.US_ASCII))));
            }
            pipeline.writeBytes(
                    RawV2.frame(RawV2.get("k" + (n - 1)))); // behind the writes: must see the last
            pipeline.writeBytes(RawV2.frame(RawV2.delete("k0")));
            pipeline.writeBytes(RawV2.frame(RawV2.delete("never-set")));
            try (Socket socket =
                    new Socket(
                            server.getLocalAddress().getAddress(),
                            server.getLocalAddress().getPort())) {
                socket.setSoTimeout(20_000);
                socket.getOutputStream().write(pipeline.toByteArray());
                InputStream in = new BufferedInputStream(socket.getInputStream());
                for (int i = 0; i < n; i++) {
                    assertThat(RawV2.readReply(in)).as("reply to SET k%d", i).containsExactly('K');
                }
                assertThat(RawV2.readReply(in))
                        .as("GET k%d", n - 1)
                        .isEqualTo(
                                RawV2.value(("v" + (n - 1)).getBytes(StandardCharsets.US_ASCII)));
                assertThat(RawV2.readReply(in)).as("DELETE k0").containsExactly('K');
                assertThat(RawV2.readReply(in)).as("DELETE never-set").containsExactly('N');
            }
            var stats = store.stats();
            assertThat(stats.recordsForced()).isEqualTo(n + 2);
            // one connection alone: without submitting a read's writes together this would be n + 2
            // fsyncs
            assertThat(stats.fsyncs()).isLessThan(n / 4);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void underIntervalPipelinedWritesShareWriteCallsAndAnswerInOrder(ServerModel model)
            throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions wal =
                WalOptions.defaults(Path.of("sim"))
                        .withFsync(FsyncPolicy.INTERVAL)
                        .withRewrite(0, 0);
        // No safety net: were a session to wait without flushing, it would wait past the socket's
        // timeout.
        WalLimits noSafetyNet = WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(10));
        try (WalStore store =
                        WalStore.open(
                                new MapStore(new ConcurrentHashMap<>()),
                                wal,
                                disk.mount(),
                                noSafetyNet);
                KeyValueServer server =
                        new KeyValueServer(ServerOptions.defaults().withModel(model), store)) {
            server.start();
            int n = 500;
            ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
            pipeline.writeBytes(RawV2.PREAMBLE);
            for (int i = 0; i < n; i++) {
                pipeline.writeBytes(
                        RawV2.frame(
                                RawV2.set(
                                        "k" + (i % 50),
                                        ("v" + i).getBytes(StandardCharsets.US_ASCII))));
            }
            pipeline.writeBytes(
                    RawV2.frame(
                            RawV2.get(
                                    "k" + ((n - 1) % 50)))); // behind the writes: must see the last
            try (Socket socket =
                    new Socket(
                            server.getLocalAddress().getAddress(),
                            server.getLocalAddress().getPort())) {
                socket.setSoTimeout(20_000);
                socket.getOutputStream()
                        .write(pipeline.toByteArray()); // one write: it arrives in a few reads
                InputStream in = new BufferedInputStream(socket.getInputStream());
                for (int i = 0; i < n; i++) {
                    assertThat(RawV2.readReply(in)).as("reply to SET %d", i).containsExactly('K');
                }
                assertThat(RawV2.readReply(in))
                        .as("GET behind the writes")
                        .isEqualTo(
                                RawV2.value(("v" + (n - 1)).getBytes(StandardCharsets.US_ASCII)));
            }
            assertThat(store.stats().recordsWritten()).isEqualTo(n);
            // one write call per read's writes: one per record would be n
            assertThat(disk.writes()).isLessThan(n / 4);

            // every other way a session writes flushes before it waits, too (or this would time
            // out)
            V1.set(server.getLocalAddress(), b("one"), b("1"));
            assertThat(V1.get(server.getLocalAddress(), b("one"))).isEqualTo(b("1"));
            try (Resp resp = new Resp(server.getLocalAddress())) {
                assertThat(resp.call("SET", "r", "1")).isEqualTo("+OK");
                assertThat(resp.call("MSET", "m1", "1", "m2", "2")).isEqualTo("+OK");
                assertThat(resp.call("DEL", "r", "m1", "nope")).isEqualTo(":2");
                assertThat(resp.call("GET", "m2")).isEqualTo("2");
                assertThat(resp.call("FLUSHALL")).isEqualTo("+OK");
                assertThat(resp.call("DBSIZE")).isEqualTo(":0");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL"})
    void withoutADataDirNothingIsLogged(ServerModel model) throws Exception {
        try (KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(model), new ConcurrentHashMap<>())) {
            server.start();
            assertThat(server.walStore()).isNull();
            try (Resp resp = new Resp(server.getLocalAddress())) {
                assertThat(resp.call("INFO", "persistence")).contains("aof_enabled:0");
                assertThat(resp.call("BGREWRITEAOF")).startsWith("-ERR").contains("--data-dir");
            }
        }
    }

    /** RESP by hand: a status, error or integer line as it came, a bulk string's text, or (nil). */
    static final class Resp implements AutoCloseable {
        private final RespConnection connection;

        Resp(InetSocketAddress address) throws IOException {
            connection = new RespConnection(address);
        }

        String call(String... args) throws IOException {
            byte[][] bytes = new byte[args.length][];
            for (int i = 0; i < args.length; i++) {
                bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
            }
            String line = connection.call(bytes);
            if (line.startsWith("$")) {
                int n = Integer.parseInt(line.substring(1));
                if (n < 0) {
                    return "(nil)";
                }
                byte[] body = connection.body(n + 2);
                return new String(body, 0, n, StandardCharsets.UTF_8);
            }
            return line;
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
