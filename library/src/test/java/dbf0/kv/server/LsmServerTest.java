package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.lsm.LsmOptions;
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
 * The LSM store served: every protocol on every server model puts, gets and deletes through it, and
 * a restarted server finds what the last one was told.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LsmServerTest {

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ServerOptions options(Path dir, ServerModel model) {
        return ServerOptions.defaults()
                .withModel(model)
                .withThreads(2)
                .withLsm(LsmOptions.defaults(dir).withFsync(FsyncPolicy.ALWAYS));
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void everyProtocolReadsAndWritesTheStore(ServerModel model, @TempDir Path dir)
            throws Exception {
        try (KeyValueServer server = new KeyValueServer(options(dir, model))) {
            server.start();
            var address = server.getLocalAddress();
            assertThat(server.lsmStore()).isNotNull();

            V1.set(address, b("v1"), b("one"));
            assertThat(V1.get(address, b("v1"))).isEqualTo(b("one"));

            try (KeyValueClient v2 = KeyValueClient.connect(address);
                    DurabilityServerTest.Resp resp = new DurabilityServerTest.Resp(address)) {
                v2.set(b("v2"), b("two"));
                assertThat(v2.get(b("v2"))).isEqualTo(b("two"));
                assertThat(v2.get(b("v1"))).isEqualTo(b("one")); // one store behind every protocol
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

                // a range read and a cursor scan, off the loop on nio, in the connection's order
                Response.Range range = v2.scan(new Request.Range(b("a"), false, b(""), 10));
                assertThat(range.pairs()).extracting(p -> p.key()).containsExactly(b("v1"));

                assertThat(resp.call("SET", "r", "three")).isEqualTo("+OK");
                assertThat(resp.call("GET", "r")).isEqualTo("three");
                assertThat(resp.call("GET", "v1")).isEqualTo("one");
                assertThat(resp.call("GET", "nope")).isEqualTo("(nil)");
                assertThat(resp.call("DEL", "r")).isEqualTo(":1");
                assertThat(resp.call("GET", "r")).isEqualTo("(nil)");
                // the store's estimate, kept as writes go: exact here, and INFO says what it is
                assertThat(resp.call("DBSIZE")).isEqualTo(":1");
                assertThat(resp.call("INFO", "keyspace"))
                        .isEqualTo(
                                "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"
                                        + "dbf0_keys_estimated:1\r\n");
                assertThat(resp.call("PING")).isEqualTo("+PONG");
                assertThat(resp.call("MGET", "r", "v1")).isEqualTo("*2"); // the last: items unread
            }
            try (DurabilityServerTest.Resp scan = new DurabilityServerTest.Resp(address)) {
                assertThat(scan.call("SCAN", "0")).isEqualTo("*2"); // cursor and keys follow
            }
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
        try (KeyValueServer server = new KeyValueServer(options(dir, ServerModel.NIO));
                KeyValueClient v2 = connectAfterStart(server)) {
            assertThat(v2.get(b("k0"))).isEqualTo(b("v0"));
            assertThat(v2.get(b("k99"))).isEqualTo(b("v99"));
            assertThat(v2.get(b("k7"))).isNull();
        }
    }

    private static KeyValueClient connectAfterStart(KeyValueServer server) throws Exception {
        server.start();
        return KeyValueClient.connect(server.getLocalAddress());
    }
}
