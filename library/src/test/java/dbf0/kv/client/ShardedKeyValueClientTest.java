package dbf0.kv.client;

import static dbf0.kv.client.KeyValueClientTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Placement by jump consistent hash, and the sharded client against three real servers on loopback.
 */
@Timeout(60)
class ShardedKeyValueClientTest {

    private static final int KEYS = 100_000;

    private static List<ByteArrayWrapper> randomKeys(int count, long seed) {
        Random random = new Random(seed);
        List<ByteArrayWrapper> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] key = new byte[1 + random.nextInt(16)];
            random.nextBytes(key);
            keys.add(new ByteArrayWrapper(key));
        }
        return keys;
    }

    @Test
    void addingAServerMovesAboutOneNthOfTheKeysAllToTheNewServer() {
        List<ByteArrayWrapper> keys = randomKeys(KEYS, 1);
        for (int n = 1; n <= 9; n++) {
            int moved = 0;
            for (ByteArrayWrapper key : keys) {
                int before = ShardedKeyValueClient.shardFor(key, n);
                int after = ShardedKeyValueClient.shardFor(key, n + 1);
                if (before != after) {
                    moved++;
                    assertThat(after).as("a moved key goes to the new server").isEqualTo(n);
                }
            }
            double expected = 1.0 / (n + 1);
            // binomial sd for 100k keys is at most 0.0016; 0.01 is over six of them
            assertThat((double) moved / KEYS)
                    .as("share moved going %d -> %d servers", n, n + 1)
                    .isBetween(expected - 0.01, expected + 0.01);
        }
    }

    @Test
    void keysSpreadEvenlyIncludingShortAndSequentialOnes() {
        int servers = 5;
        int[] counts = new int[servers];
        for (int i = 0; i < KEYS; i++) {
            counts[
                    ShardedKeyValueClient.shardFor(
                            bytes("key" + i), servers)]++; // near-identical keys
        }
        for (int count : counts) {
            assertThat((double) count / KEYS).isBetween(0.19, 0.21);
        }
        int[] oneByte = new int[2];
        for (int b = 0; b < 256; b++) {
            oneByte[ShardedKeyValueClient.shardFor(ByteArrayWrapper.of(b), 2)]++;
        }
        assertThat(oneByte[0])
                .isBetween(100, 156); // both servers get a fair share of one-byte keys
    }

    @Test
    void placementIsPinned() {
        // Placement must not change between versions: clients of different builds must agree. These
        // values were computed once by this implementation; a change to the hash fails here.
        assertThat(ShardedKeyValueClient.hashKey(new byte[0])).isEqualTo(PINNED_EMPTY_HASH);
        assertThat(
                        ShardedKeyValueClient.hashKey(
                                "a".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isNotEqualTo(
                        ShardedKeyValueClient.hashKey(
                                "b".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        int[] placed = new int[10];
        for (int i = 0; i < 10; i++) {
            placed[i] = ShardedKeyValueClient.shardFor(bytes("key" + i), 7);
        }
        assertThat(placed).containsExactly(PINNED_KEY0_TO_9_OF_7);
        assertThat(ShardedKeyValueClient.jumpHash(0, 1)).isZero();
        assertThatThrownBy(() -> ShardedKeyValueClient.jumpHash(1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    static final int[] PINNED_KEY0_TO_9_OF_7 = {3, 0, 6, 0, 3, 3, 5, 2, 2, 5};
    static final long PINNED_EMPTY_HASH = -1166397803181037274L;

    @Test
    void threeServersEachKeyOnExactlyOneAndTheUnionHoldsWhatWasWritten() throws Exception {
        List<Map<ByteArrayWrapper, ByteArrayWrapper>> maps = new ArrayList<>();
        List<KeyValueServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
                KeyValueServer server =
                        new KeyValueServer(
                                ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(1),
                                map);
                server.start();
                maps.add(map);
                servers.add(server);
            }
            List<InetSocketAddress> addresses =
                    servers.stream().map(KeyValueServer::getLocalAddress).toList();
            Map<ByteArrayWrapper, ByteArrayWrapper> written = new HashMap<>();
            try (ShardedKeyValueClient client = ShardedKeyValueClient.connect(addresses)) {
                assertThat(client.shardCount()).isEqualTo(3);
                client.ping();
                // blocking calls
                for (int i = 0; i < 300; i++) {
                    client.set(bytes("s" + i), bytes("v" + i));
                    written.put(bytes("s" + i), bytes("v" + i));
                }
                // pipelined: many in flight at once over the three connections
                List<CompletableFuture<Void>> sets = new ArrayList<>();
                for (int i = 0; i < 3_000; i++) {
                    sets.add(client.setAsync(bytes("p" + i), bytes("w" + i)));
                    written.put(bytes("p" + i), bytes("w" + i));
                }
                CompletableFuture.allOf(sets.toArray(CompletableFuture[]::new)).get();
                // batched: one batch spanning all servers; replies must come back in the caller's
                // order
                List<Request> ops = new ArrayList<>();
                List<Response> expected = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    ops.add(new Request.Set(bytes("b" + i), bytes("x" + i)));
                    expected.add(new Response.Ok());
                    ops.add(new Request.Get(bytes("p" + i)));
                    expected.add(new Response.Value(bytes("w" + i)));
                    ops.add(new Request.Get(bytes("absent" + i)));
                    expected.add(new Response.NotFound());
                    written.put(bytes("b" + i), bytes("x" + i));
                }
                ops.add(new Request.Delete(bytes("s0")));
                expected.add(new Response.Ok());
                written.remove(bytes("s0"));
                assertThat(client.batch(ops)).containsExactlyElementsOf(expected);
                assertThat(client.batch(List.of())).isEmpty();
                assertThat(client.get(bytes("s0"))).isNull();
                assertThat(client.get(bytes("s1"))).isEqualTo(bytes("v1"));
                assertThat(client.delete(bytes("s0"))).isFalse();
            }
            Map<ByteArrayWrapper, ByteArrayWrapper> union = new HashMap<>();
            for (int s = 0; s < 3; s++) {
                assertThat(maps.get(s)).as("server %d holds keys", s).isNotEmpty();
                for (var entry : maps.get(s).entrySet()) {
                    assertThat(ShardedKeyValueClient.shardFor(entry.getKey(), 3))
                            .as("key %s on its own server", entry.getKey())
                            .isEqualTo(s);
                    assertThat(union.put(entry.getKey(), entry.getValue()))
                            .as("key on one server only")
                            .isNull();
                }
            }
            assertThat(union).isEqualTo(written);
        } finally {
            servers.forEach(KeyValueServer::close);
        }
    }

    @Test
    void aRefusedPartFailsTheWholeBatch() throws Exception {
        KeyValueServer b = KeyValueClientTest.start(ServerModel.NIO, ServerOptions.defaults());
        try (KeyValueServer a =
                        KeyValueClientTest.start(ServerModel.NIO, ServerOptions.defaults());
                ShardedKeyValueClient client =
                        ShardedKeyValueClient.connect(
                                List.of(a.getLocalAddress(), b.getLocalAddress()))) {
            b.close(); // every request to server b now fails
            List<Request> ops = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                ops.add(new Request.Set(bytes("k" + i), bytes("v")));
            }
            assertThatThrownBy(() -> client.batch(ops)).isInstanceOf(java.io.IOException.class);
            assertThatThrownBy(() -> client.batch(List.of(new Request.Ping())))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            b.close();
        }
    }
}
