package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.client.V1Client;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.Request;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.wal.WalOptions;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * COUNTKEYSINSLOT and GETKEYSINSLOT answer from the slot index: after random writes through every
 * path a cluster node has (RESP SET, DEL, MSET, FLUSHALL; v2 SET, DELETE, BATCH; v1 SET), sent from
 * two connections at once, their answers equal a walk of the node's map, slot by slot. And again
 * after a restart that replays the log.
 */
@Timeout(60)
class ClusterSlotIndexTest {

    private static final int TAGS = 6;
    private static final int KEYS_PER_TAG = 30;

    /** A one-node cluster over {@code map}: every slot is its own. */
    private static KeyValueServer node(
            Map<ByteArrayWrapper, ByteArrayWrapper> map, int port, Path dir, ServerModel model)
            throws Exception {
        ServerOptions options =
                ServerOptions.defaults()
                        .withModel(model)
                        .withThreads(2)
                        .withBindAddress(new InetSocketAddress("127.0.0.1", port));
        if (dir != null) {
            options = options.withDurability(WalOptions.defaults(dir));
        }
        KeyValueServer server = new KeyValueServer(options, map);
        server.clusterNodes(ClusterNode.parseList("127.0.0.1:" + port));
        server.start();
        return server;
    }

    private static String key(Random random) {
        int tag = random.nextInt(TAGS);
        return random.nextInt(10) == 0
                ? "free" + random.nextInt(50) // no tag: any slot
                : "{t" + tag + "}k" + random.nextInt(KEYS_PER_TAG);
    }

    private static ByteArrayWrapper w(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Random RESP writes, each answered before the next. */
    private static void respWrites(int port, long seed, int n) throws Exception {
        Random random = new Random(seed);
        try (RawResp c = new RawResp(port)) {
            for (int i = 0; i < n; i++) {
                int r = random.nextInt(100);
                String k = key(random);
                String reply;
                if (r < 45) {
                    reply = c.call("SET", k, "v" + i);
                } else if (r < 80) {
                    reply = c.call("DEL", k);
                } else if (r < 99) {
                    String tag =
                            k.startsWith("{") ? k.substring(0, k.indexOf('}') + 1) : "{" + k + "}";
                    reply = c.call("MSET", tag + "a" + i % 7, "1", tag + "b" + i % 5, "2");
                } else {
                    reply = c.call("FLUSHALL");
                }
                assertThat(reply).doesNotStartWith("-");
            }
        }
    }

    /** Random v2 writes, pipelined a few at a time, and a v1 SET now and then. */
    private static void otherWrites(int port, long seed, int n, boolean v1) throws Exception {
        Random random = new Random(seed);
        try (KeyValueClient kv = KeyValueClient.connect("127.0.0.1", port)) {
            List<CompletableFuture<?>> inFlight = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int r = random.nextInt(100);
                String k = key(random);
                if (r < 40) {
                    inFlight.add(kv.setAsync(w(k), w("x" + i)));
                } else if (r < 75) {
                    inFlight.add(kv.deleteAsync(w(k)));
                } else if (r < 95 || !v1) {
                    List<Request> ops = new ArrayList<>();
                    for (int j = 0; j < 4; j++) {
                        String b = key(random);
                        ops.add(
                                random.nextBoolean()
                                        ? new Request.Set(w(b), w("b" + i))
                                        : new Request.Delete(w(b)));
                    }
                    inFlight.add(kv.batchAsync(ops));
                } else {
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        V1Client.setAndAwaitClose(s, w(k), w("one"));
                    }
                }
                if (inFlight.size() == 8) {
                    CompletableFuture.allOf(inFlight.toArray(CompletableFuture<?>[]::new)).join();
                    inFlight.clear();
                }
            }
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture<?>[]::new)).join();
        }
    }

    private static void writeFromTwoConnections(int port, long seed, boolean v1) throws Exception {
        CompletableFuture<Void> resp =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                respWrites(port, seed, 600);
                            } catch (Exception e) {
                                throw new RuntimeException(e);
                            }
                        });
        otherWrites(port, seed + 1, 600, v1);
        resp.join();
    }

    /** Every tag's slot and a few others: the two commands against a walk of the map. */
    private static void assertSlotsMatchTheMap(int port, Map<ByteArrayWrapper, ?> map)
            throws Exception {
        Set<Integer> slots = new HashSet<>();
        for (int t = 0; t < TAGS; t++) {
            slots.add(HashSlots.slot(("t" + t).getBytes(StandardCharsets.UTF_8)));
        }
        for (int i = 0; i < 50; i += 7) {
            slots.add(HashSlots.slot(("free" + i).getBytes(StandardCharsets.UTF_8)));
        }
        int nonEmpty = 0;
        try (RawResp c = new RawResp(port)) {
            for (int slot : slots) {
                Set<String> walked = new HashSet<>();
                for (ByteArrayWrapper k : map.keySet()) {
                    if (HashSlots.slot(k.getArray()) == slot) {
                        walked.add(new String(k.getArray(), StandardCharsets.UTF_8));
                    }
                }
                nonEmpty += walked.isEmpty() ? 0 : 1;
                assertThat(c.call("CLUSTER", "COUNTKEYSINSLOT", "" + slot))
                        .as("slot %d", slot)
                        .isEqualTo(":" + walked.size() + "\r\n");
                StringBuilder all = new StringBuilder("*" + walked.size() + "\r\n");
                String got = c.call("CLUSTER", "GETKEYSINSLOT", "" + slot, "1000");
                assertThat(got.length()).as("slot %d", slot).isEqualTo(reply(walked).length());
                for (String k : walked) {
                    assertThat(got).contains("$" + k.length() + "\r\n" + k + "\r\n");
                }
                assertThat(got).startsWith(all.toString());
                String two = c.call("CLUSTER", "GETKEYSINSLOT", "" + slot, "2");
                assertThat(two).startsWith("*" + Math.min(2, walked.size()) + "\r\n");
            }
        }
        assertThat(nonEmpty).as("slots with keys, so that the check means something").isPositive();
    }

    private static String reply(Set<String> keys) {
        StringBuilder s = new StringBuilder("*" + keys.size() + "\r\n");
        for (String k : keys) {
            s.append('$').append(k.length()).append("\r\n").append(k).append("\r\n");
        }
        return s.toString();
    }

    @Test
    void everyWritePathKeepsTheSlotsExact() throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        int port = LocalCluster.freePort();
        try (KeyValueServer server = node(map, port, null, ServerModel.NIO)) {
            for (long seed = 1; seed <= 3; seed++) {
                writeFromTwoConnections(port, seed * 10, true);
                assertSlotsMatchTheMap(port, map);
                assertThat(server.size()).isEqualTo(map.size());
            }
        }
    }

    @Test
    void aRestartRebuildsTheIndexFromTheLog(@TempDir Path dir) throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        int port = LocalCluster.freePort();
        try (KeyValueServer server = node(map, port, dir, ServerModel.NIO)) {
            writeFromTwoConnections(port, 7, false);
            assertSlotsMatchTheMap(port, map);
            assertThat(server.size()).isEqualTo(map.size());
        }
        Map<ByteArrayWrapper, ByteArrayWrapper> replayed = new ConcurrentHashMap<>();
        try (KeyValueServer server = node(replayed, port, dir, ServerModel.POOL)) {
            assertThat(replayed).isEqualTo(map);
            assertSlotsMatchTheMap(port, replayed);
            writeFromTwoConnections(port, 8, true); // v1 SETs block on the pool model's put
            assertSlotsMatchTheMap(port, replayed);
            assertThat(server.size()).isEqualTo(replayed.size());
        }
    }
}
