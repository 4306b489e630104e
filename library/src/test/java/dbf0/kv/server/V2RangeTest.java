package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.client.ServerErrorException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.MapBackends;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

/** v2 RANGE against a real server on 127.0.0.1: raw bytes from the spec, then the client. */
class V2RangeTest {

    private static KeyValueServer start(String map, ProtocolLimits limits) throws Exception {
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withModel(ServerModel.NIO)
                                .withThreads(1)
                                .withLimits(limits),
                        MapBackends.create(map));
        server.start();
        return server;
    }

    /** A RANGE body written by hand: 'R', flags, limit, start, end. */
    private static byte[] range(int flags, int limit, String start, String end) {
        byte[] s = start.getBytes(StandardCharsets.US_ASCII);
        byte[] e = end.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + 1 + 4 + 4 + s.length + 4 + e.length)
                .put((byte) 'R')
                .put((byte) flags)
                .putInt(limit)
                .putInt(s.length)
                .put(s)
                .putInt(e.length)
                .put(e)
                .array();
    }

    /** Sends the frames after the preamble and reads {@code replies} reply bodies. */
    private static List<byte[]> exchange(InetSocketAddress address, int replies, byte[]... bodies)
            throws Exception {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(5_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(RawV2.PREAMBLE);
            for (byte[] body : bodies) {
                out.writeBytes(RawV2.frame(body));
            }
            socket.getOutputStream().write(out.toByteArray());
            InputStream in = socket.getInputStream();
            List<byte[]> bodiesBack = new ArrayList<>();
            for (int i = 0; i < replies; i++) {
                bodiesBack.add(RawV2.readReply(in));
            }
            return bodiesBack;
        }
    }

    @Test
    void rawBytesReadARangeInByteOrderAndSayWhetherMoreFollows() throws Exception {
        try (KeyValueServer server = start("skiplist", ProtocolLimits.DEFAULTS)) {
            List<byte[]> replies =
                    exchange(
                            server.getLocalAddress(),
                            5,
                            RawV2.set("k2", new byte[] {(byte) 0xbb}),
                            RawV2.set("k1", new byte[] {(byte) 0xaa}),
                            RawV2.set("k3", new byte[] {(byte) 0xcc}),
                            range(0, 2, "k", ""), // behind the writes: sees them
                            range(1, 10, "k2", "k9"));
            assertThat(Hex.encodeHexString(replies.get(3)))
                    .as("two pairs, more follow")
                    .isEqualTo(
                            "52"
                                    + "01"
                                    + "00000002"
                                    + "000000026b31"
                                    + "00000001aa"
                                    + "000000026b32"
                                    + "00000001bb");
            assertThat(Hex.encodeHexString(replies.get(4)))
                    .as("after k2: one pair, the range is exhausted")
                    .isEqualTo("52" + "00" + "00000001" + "000000026b33" + "00000001cc");
        }
    }

    @Test
    void aHashMapServerAnswersAClearErrorAndTheConnectionGoesOn() throws Exception {
        try (KeyValueServer server = start("concurrent", ProtocolLimits.DEFAULTS)) {
            List<byte[]> replies =
                    exchange(
                            server.getLocalAddress(),
                            3,
                            range(0, 5, "", ""),
                            range(0, 0, "", ""),
                            RawV2.ping());
            assertThat(RawV2.errorMessage(replies.get(0)))
                    .contains("RANGE refused")
                    .contains("--map skiplist");
            assertThat(RawV2.errorMessage(replies.get(1))).contains("a RANGE limit of 0");
            assertThat(replies.get(2)).containsExactly('K');
        }
    }

    @Test
    void theServerCapsAPageByItsFrameAndBatchLimitsAndTheClientReadsOn() throws Exception {
        // frames of 64 bytes hold a reply header (6) and two pairs of 2-byte keys and 12-byte
        // values (22 each), not three; three when one value is short; never more than 3 pairs
        ProtocolLimits small = new ProtocolLimits(8, 16, 64, 3);
        try (KeyValueServer server = start("skiplist", small);
                KeyValueClient client =
                        KeyValueClient.connect(
                                server.getLocalAddress(), small, Duration.ofSeconds(5))) {
            byte[] value = new byte[12];
            for (int i = 0; i < 7; i++) {
                client.set(ByteArrayWrapper.of('k', '0' + i), new ByteArrayWrapper(value));
            }
            client.set(ByteArrayWrapper.of('k', '0'), ByteArrayWrapper.of(1)); // a short one
            Response.Range first =
                    client.scan(
                            new Request.Range(
                                    ByteArrayWrapper.of(),
                                    false,
                                    ByteArrayWrapper.of(),
                                    Integer.MAX_VALUE));
            assertThat(first.pairs()).as("the short pair lets a third fit").hasSize(3);
            assertThat(first.more()).isTrue();

            List<ByteArrayWrapper> keys = new ArrayList<>();
            Response.Range page = first;
            first.pairs().forEach(p -> keys.add(p.key()));
            int pages = 1;
            while (page.more()) {
                ByteArrayWrapper last = page.pairs().getLast().key();
                page = client.scan(new Request.Range(last, true, ByteArrayWrapper.of(), 100));
                page.pairs().forEach(p -> keys.add(p.key()));
                assertThat(page.pairs().size()).isBetween(1, 2);
                pages++;
            }
            assertThat(keys)
                    .containsExactly(
                            ByteArrayWrapper.of('k', '0'),
                            ByteArrayWrapper.of('k', '1'),
                            ByteArrayWrapper.of('k', '2'),
                            ByteArrayWrapper.of('k', '3'),
                            ByteArrayWrapper.of('k', '4'),
                            ByteArrayWrapper.of('k', '5'),
                            ByteArrayWrapper.of('k', '6'));
            assertThat(pages).isEqualTo(3); // 3, then 2 and 2: the last says no more
        }
    }

    @Test
    void theClientSurfacesTheRefusalOfAHashMap() throws Exception {
        try (KeyValueServer server = start("concurrent", ProtocolLimits.DEFAULTS);
                KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            assertThatThrownBy(
                            () ->
                                    client.scan(
                                            new Request.Range(
                                                    ByteArrayWrapper.of(),
                                                    false,
                                                    ByteArrayWrapper.of(),
                                                    10)))
                    .isInstanceOf(ServerErrorException.class)
                    .hasMessageContaining("hash order");
            client.ping();
        }
    }
}
