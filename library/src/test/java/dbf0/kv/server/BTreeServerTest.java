package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The B+tree store served: every protocol on every server model puts, gets, deletes and scans
 * through it, with a pool far smaller than the data so that reads go to the disk (off the event
 * loops on nio), and a restarted server finds what the last one was told.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BTreeServerTest {

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ServerOptions options(Path dir, ServerModel model) {
        return ServerOptions.defaults()
                .withModel(model)
                .withThreads(2)
                .withBtree(
                        BTreeOptions.defaults(dir)
                                .withBufferPoolBytes(64 * 1024)
                                .withFsync(FsyncPolicy.ALWAYS));
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void everyProtocolReadsAndWritesTheStore(ServerModel model, @TempDir Path dir)
            throws Exception {
        try (KeyValueServer server = new KeyValueServer(options(dir, model))) {
            server.start();
            var address = server.getLocalAddress();
            assertThat(server.btreeStore()).isNotNull();

            V1.set(address, b("v1"), b("one"));
            assertThat(V1.get(address, b("v1"))).isEqualTo(b("one"));

            try (KeyValueClient v2 = KeyValueClient.connect(address);
                    DurabilityServerTest.Resp resp = new DurabilityServerTest.Resp(address)) {
                byte[] big = new byte[900];
                for (int i = 0; i < 300; i++) { // ~270 KiB: four times the pool
                    java.util.Arrays.fill(big, (byte) i);
                    v2.set(b(String.format("k%04d", i)), new ByteArrayWrapper(big.clone()));
                }
                v2.set(b("v2"), b("two"));
                assertThat(v2.get(b("v2"))).isEqualTo(b("two"));
                assertThat(v2.get(b("k0003")).getArray()[0]).isEqualTo((byte) 3);
                assertThat(v2.delete(b("v2"))).isTrue();
                assertThat(v2.get(b("v2"))).isNull();
                assertThat(v2.delete(b("v2"))).isFalse();
                List<Response> batch =
                        v2.batch(
                                List.of(
                                        new Request.Set(b("b"), b("x")),
                                        new Request.Get(b("b")),
                                        new Request.Get(b("v1")),
                                        new Request.Delete(b("b"))));
                assertThat(batch)
                        .containsExactly(
                                new Response.Ok(),
                                new Response.Value(b("x")),
                                new Response.Value(b("one")),
                                new Response.Ok());

                Response.Range range = v2.scan(new Request.Range(b("k0100"), false, b(""), 3));
                assertThat(range.pairs())
                        .extracting(p -> p.key())
                        .containsExactly(b("k0100"), b("k0101"), b("k0102"));

                assertThat(resp.call("SET", "r", "three")).isEqualTo("+OK");
                assertThat(resp.call("GET", "r")).isEqualTo("three");
                assertThat(resp.call("GET", "nope")).isEqualTo("(nil)");
                assertThat(resp.call("DEL", "r")).isEqualTo(":1");
                assertThat(resp.call("DBSIZE")).isEqualTo(":301"); // exact: a counter
                assertThat(resp.call("PING")).isEqualTo("+PONG");
            }
            try (DurabilityServerTest.Resp scan = new DurabilityServerTest.Resp(address)) {
                assertThat(scan.call("SCAN", "0")).isEqualTo("*2"); // cursor and keys follow
            }
            assertThat(server.btreeStore().stats().evictions()).isPositive();
        }
    }

    @Test
    void aRestartedServerFindsWhatItWasTold(@TempDir Path dir) throws Exception {
        try (KeyValueServer server = new KeyValueServer(options(dir, ServerModel.NIO))) {
            server.start();
            try (KeyValueClient v2 = KeyValueClient.connect(server.getLocalAddress())) {
                for (int i = 0; i < 100; i++) {
                    v2.set(b("k" + i), b("v" + i));
                }
                v2.delete(b("k7"));
            }
        }
        try (KeyValueServer server = new KeyValueServer(options(dir, ServerModel.NIO))) {
            server.start();
            try (KeyValueClient v2 = KeyValueClient.connect(server.getLocalAddress())) {
                assertThat(v2.get(b("k0"))).isEqualTo(b("v0"));
                assertThat(v2.get(b("k99"))).isEqualTo(b("v99"));
                assertThat(v2.get(b("k7"))).isNull();
            }
            assertThat(server.btreeStore().recovery().summary())
                    .startsWith("btree store opened: 99 keys");
        }
    }
}
