package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V1Codec;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A read that waits for the disk does not hold up the event loop: with one loop, a connection whose
 * GET of a cold key is held (by {@link ColdReadStore}, until the test releases it) leaves another
 * connection's GETs answered meanwhile, and its own replies come in request order once the read is
 * done. No timing: the held read is held for as long as the test says.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DiskReadsOffLoopTest {

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private static KeyValueServer server(ColdReadStore store) throws Exception {
        for (String key : new String[] {"cold1", "cold2", "cold3", "hot"}) {
            store.put(b(key), b("value of " + key));
        }
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(1), store);
        server.start();
        return server;
    }

    private static byte[] frames(byte[]... bodies) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(RawV2.PREAMBLE);
        for (byte[] body : bodies) {
            out.writeBytes(RawV2.frame(body));
        }
        return out.toByteArray();
    }

    private static byte[] value(String text) {
        return RawV2.value(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void v2RepliesKeepTheirOrderWhileOtherConnectionsAreServed() throws Exception {
        try (ColdReadStore store = new ColdReadStore(1);
                KeyValueServer server = server(store);
                Socket slow = new Socket("127.0.0.1", server.getLocalAddress().getPort());
                Socket other = new Socket("127.0.0.1", server.getLocalAddress().getPort())) {
            // In place (GET), behind a write (the decoder's GET), and a batch that reads cold. A
            // read behind this connection's writes waits for every reply queued before it, so the
            // batch's cold read starts only once cold1's is done.
            slow.getOutputStream()
                    .write(
                            frames(
                                    RawV2.get("cold1"),
                                    RawV2.get("hot"),
                                    RawV2.set("a", "1".getBytes(StandardCharsets.UTF_8)),
                                    RawV2.get("a"),
                                    RawV2.batch(RawV2.get("cold2"), RawV2.get("a"))));
            assertThat(store.coldReadsStarted.await(10, TimeUnit.SECONDS)).isTrue();

            OutputStream o = other.getOutputStream();
            InputStream oi = other.getInputStream();
            o.write(frames(RawV2.get("hot"), RawV2.get("a")));
            assertThat(RawV2.readReply(oi)).isEqualTo(value("value of hot"));
            // nor has the SET: a write waits for the reads before it, which must not see it
            assertThat(RawV2.readReply(oi)).isEqualTo(new byte[] {'N'});
            assertThat(slow.getInputStream().available()).isZero(); // cold1 holds every reply

            store.release();
            InputStream si = slow.getInputStream();
            assertThat(RawV2.readReply(si)).isEqualTo(value("value of cold1"));
            assertThat(RawV2.readReply(si)).isEqualTo(value("value of hot"));
            assertThat(RawV2.readReply(si)).isEqualTo(new byte[] {'K'});
            assertThat(RawV2.readReply(si)).isEqualTo(value("1"));
            byte[] batch = RawV2.readReply(si);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.writeBytes(new byte[] {'B'});
            expected.writeBytes(ByteBuffer.allocate(4).putInt(2).array());
            expected.writeBytes(value("value of cold2"));
            expected.writeBytes(value("1"));
            assertThat(batch).isEqualTo(expected.toByteArray());
        }
    }

    @Test
    void respRepliesKeepTheirOrderWhileOtherConnectionsAreServed() throws Exception {
        try (ColdReadStore store = new ColdReadStore(1);
                KeyValueServer server = server(store);
                Socket slow = new Socket("127.0.0.1", server.getLocalAddress().getPort());
                DurabilityServerTest.Resp other =
                        new DurabilityServerTest.Resp(server.getLocalAddress())) {
            String pipeline =
                    "*2\r\n$3\r\nGET\r\n$5\r\ncold1\r\n"
                            + "*2\r\n$3\r\nGET\r\n$3\r\nhot\r\n"
                            + "*3\r\n$4\r\nMGET\r\n$5\r\ncold2\r\n$3\r\nhot\r\n"
                            + "GET cold3\r\n" // inline: the parser's path, not the in-place one
                            + "*3\r\n$6\r\nEXISTS\r\n$5\r\ncold1\r\n$4\r\nnope\r\n"
                            // a write behind reads still out: they must not see it, the GET must
                            + "*3\r\n$3\r\nSET\r\n$5\r\ncold2\r\n$3\r\nnew\r\n"
                            + "*2\r\n$3\r\nGET\r\n$5\r\ncold2\r\n";
            slow.getOutputStream().write(pipeline.getBytes(StandardCharsets.US_ASCII));
            assertThat(store.coldReadsStarted.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(other.call("GET", "hot")).isEqualTo("value of hot");
            assertThat(other.call("SET", "b", "2")).isEqualTo("+OK");
            assertThat(other.call("MGET", "hot", "b")).isEqualTo("*2");
            assertThat(slow.getInputStream().available()).isZero();

            store.release();
            String expected =
                    "$14\r\nvalue of cold1\r\n"
                            + "$12\r\nvalue of hot\r\n"
                            + "*2\r\n$14\r\nvalue of cold2\r\n$12\r\nvalue of hot\r\n"
                            + "$14\r\nvalue of cold3\r\n"
                            + ":1\r\n"
                            + "+OK\r\n"
                            + "$3\r\nnew\r\n";
            byte[] got =
                    slow.getInputStream()
                            .readNBytes(expected.getBytes(StandardCharsets.US_ASCII).length);
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo(expected);
        }
    }

    @Test
    void v1GetWaitsWithoutHoldingTheLoop() throws Exception {
        try (ColdReadStore store = new ColdReadStore(1);
                KeyValueServer server = server(store)) {
            var address = server.getLocalAddress();
            try (Socket slow = new Socket("127.0.0.1", address.getPort())) {
                slow.getOutputStream().write(V1Codec.encodeGet(b("cold1")));
                assertThat(store.coldReadsStarted.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(V1.get(address, b("hot"))).isEqualTo(b("value of hot"));
                store.release();
                byte[] reply = slow.getInputStream().readAllBytes();
                assertThat(new String(reply, StandardCharsets.UTF_8)).endsWith("value of cold1");
            }
        }
    }
}
