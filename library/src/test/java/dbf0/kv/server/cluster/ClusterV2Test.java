package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.client.SlotPlacement;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol v2 on cluster nodes: TOPOLOGY and MOVED byte by byte, as docs/protocol.md draws them;
 * dbf0's own {@link ShardedKeyValueClient} in cluster mode, placing keys by the slot map it learned
 * from one node and following MOVED once a slot has moved; and a standalone server refusing
 * TOPOLOGY.
 */
@Timeout(60)
class ClusterV2Test {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void topologyAndMovedAreTheDocumentedBytes() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3);
                Socket s = new Socket("127.0.0.1", cluster.port(0))) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(new byte[] {(byte) 0xdb, 2, 0, 0, 0, 1, 'T'});
            int[][] ranges = {{0, 5460}, {5461, 10921}, {10922, 16383}};
            ByteBuffer topology = ByteBuffer.allocate(200).put((byte) 'T').putInt(3);
            for (int i = 0; i < 3; i++) {
                byte[] address = ("127.0.0.1:" + cluster.port(i)).getBytes(StandardCharsets.UTF_8);
                topology.putInt(ranges[i][0]).putInt(ranges[i][1]);
                topology.putInt(address.length).put(address);
            }
            assertThat(frame(in)).isEqualTo(bytes(topology));

            String key = ClusterRepliesTest.keyOn(1, "v2-");
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            out.write(
                    ByteBuffer.allocate(9 + k.length)
                            .putInt(5 + k.length)
                            .put((byte) 'G')
                            .putInt(k.length)
                            .put(k)
                            .array());
            byte[] owner = ("127.0.0.1:" + cluster.port(1)).getBytes(StandardCharsets.UTF_8);
            ByteBuffer moved = ByteBuffer.allocate(100).put((byte) 'M').putInt(HashSlots.slot(k));
            moved.putInt(owner.length).put(owner);
            assertThat(frame(in)).isEqualTo(bytes(moved));

            // a key this node owns is served as ever: NOT_FOUND
            byte[] here = ClusterRepliesTest.keyOn(0, "v2-").getBytes(StandardCharsets.UTF_8);
            out.write(
                    ByteBuffer.allocate(9 + here.length)
                            .putInt(5 + here.length)
                            .put((byte) 'G')
                            .putInt(here.length)
                            .put(here)
                            .array());
            assertThat(frame(in)).containsExactly('N');
        }
    }

    @Test
    void theDocsExamplesAreTheCodecsBytesAndReadBack() throws Exception {
        Response topology = new Response.Topology(List.of(new Response.Shard(0, 16383, "h:1")));
        Response moved = new Response.Moved(12539, "h:1");
        assertThat(hex(V2Codec.encode(new Request.Topology(), ProtocolLimits.DEFAULTS)))
                .isEqualTo("0000000154");
        assertThat(hex(V2Codec.encode(topology, ProtocolLimits.DEFAULTS)))
                .isEqualTo("0000001454000000010000000000003fff00000003683a31");
        assertThat(hex(V2Codec.encode(moved, ProtocolLimits.DEFAULTS)))
                .isEqualTo("0000000c4d000030fb00000003683a31");
        for (Response r : List.of(topology, moved)) {
            ByteBuffer in = ByteBuffer.wrap(V2Codec.encode(r, ProtocolLimits.DEFAULTS));
            assertThat(V2Codec.decodeResponse(in, ProtocolLimits.DEFAULTS))
                    .isEqualTo(new DecodeResult.Frame<>(r));
        }
        // a slot past 16,383 is refused, and the frame consumed
        ByteBuffer bad =
                ByteBuffer.wrap(HexFormat.of().parseHex("0000000c4d0000400000000003683a31"));
        assertThat(V2Codec.decodeResponse(bad, ProtocolLimits.DEFAULTS))
                .isInstanceOf(DecodeResult.Invalid.class);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void theShardedClientPlacesKeysByTheSlotMapAndFollowsMoved() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3);
                ShardedKeyValueClient kv =
                        ShardedKeyValueClient.connectCluster(
                                new InetSocketAddress("127.0.0.1", cluster.port(2)),
                                ProtocolLimits.DEFAULTS,
                                TIMEOUT)) {
            assertThat(kv.shardCount()).isEqualTo(3);
            for (int i = 0; i < 3_000; i++) {
                kv.set(w("k" + i), w("v" + i));
            }
            for (int i = 0; i < 3_000; i++) {
                assertThat(kv.get(w("k" + i))).isEqualTo(w("v" + i));
            }
            // Each key is where Redis's clients look for it: redis-protocol GET on its owner.
            try (RawResp node1 = new RawResp(cluster.port(1))) {
                String onOne = ClusterRepliesTest.keyOn(1, "k");
                assertThat(node1.call("GET", onOne))
                        .isEqualTo(
                                "$"
                                        + ("v" + onOne.substring(1)).length()
                                        + "\r\nv"
                                        + onOne.substring(1)
                                        + "\r\n");
            }
            List<Request> ops = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                ops.add(new Request.Set(w("b" + i), w("x" + i)));
                ops.add(new Request.Get(w("b" + i)));
            }
            List<Response> replies = kv.batch(ops);
            assertThat(replies.get(199)).isEqualTo(new Response.Value(w("x99")));

            // An empty slot of node 0 handed to node 2: the client's map is stale, node 0 answers
            // MOVED, and the client fetches the map again and writes on node 2.
            String key = emptyKeyOnNodeZero(cluster);
            int slot = HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
            List<String> ids = ClusterMigrationTest.ids(cluster);
            for (int node : new int[] {2, 0, 1}) {
                try (RawResp c = new RawResp(cluster.port(node))) {
                    assertThat(c.call("CLUSTER", "SETSLOT", "" + slot, "NODE", ids.get(2)))
                            .isEqualTo("+OK\r\n");
                }
            }
            assertThat(kv.shardFor(w(key))).isZero();
            kv.set(w(key), w("moved"));
            try (RawResp node2 = new RawResp(cluster.port(2))) {
                assertThat(node2.call("GET", key)).isEqualTo("$5\r\nmoved\r\n");
            }
            SlotPlacement placement =
                    SlotPlacement.fetch(
                            new InetSocketAddress("127.0.0.1", cluster.port(1)),
                            ProtocolLimits.DEFAULTS,
                            TIMEOUT);
            assertThat(
                            placement
                                    .nodes()
                                    .get(placement.nodeFor(key.getBytes(StandardCharsets.UTF_8))))
                    .isEqualTo(new InetSocketAddress("127.0.0.1", cluster.port(2)));
            assertThat(kv.get(w(key))).isEqualTo(w("moved"));
        }
    }

    @Test
    void aStandaloneServerRefusesTopology() throws Exception {
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withModel(ServerModel.NIO)
                                .withThreads(1)
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0)),
                        MapBackends.create("concurrent"));
        server.start();
        try (server) {
            InetSocketAddress address =
                    new InetSocketAddress("127.0.0.1", server.getLocalAddress().getPort());
            try {
                SlotPlacement.fetch(address, ProtocolLimits.DEFAULTS, TIMEOUT);
                throw new AssertionError("TOPOLOGY answered by a standalone server");
            } catch (java.io.IOException e) {
                assertThat(e).hasMessageContaining("not a cluster node");
            }
        }
    }

    /** A key of node 0's in a slot that holds no key yet (SETSLOT NODE refuses one with keys). */
    private static String emptyKeyOnNodeZero(LocalCluster cluster) throws Exception {
        try (RawResp c = new RawResp(cluster.port(0))) {
            for (int i = 0; ; i++) {
                String key = ClusterRepliesTest.keyOn(0, "moving" + i + "-");
                int slot = HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
                if (c.call("CLUSTER", "COUNTKEYSINSLOT", "" + slot).equals(":0\r\n")) {
                    return key;
                }
            }
        }
    }

    private static ByteArrayWrapper w(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] bytes(ByteBuffer body) {
        byte[] b = new byte[body.position()];
        body.flip().get(b);
        return b;
    }

    private static byte[] frame(DataInputStream in) throws Exception {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return body;
    }
}
