package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.MapStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Session-level bounds, measured without sockets: replies pending, and RESP parsing work. */
class SessionBoundsTest {

    private static ByteArrayWrapper key(String k) {
        return new ByteArrayWrapper(k.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void pipelinedGetsPauseAtTheHighWaterMarkPlusOneReply() throws IOException {
        ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        byte[] value = new byte[1 << 20];
        Arrays.fill(value, (byte) 'v');
        map.put(key("big"), new ByteArrayWrapper(value));
        SessionFeeder feeder =
                new SessionFeeder(new V2Session(new MapStore(map), ProtocolLimits.DEFAULTS));
        byte[] gets = RawV2.repeat(RawV2.frame(RawV2.get("big")), 400); // 4.8 KB asking for 400 MiB
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(RawV2.PREAMBLE);
        request.writeBytes(gets);
        byte[] bytes = request.toByteArray();
        int replySize = 4 + 1 + 4 + value.length;

        ByteSession.Next next = feeder.feed(bytes, 0, bytes.length);
        long replies = 0;
        int pauses = 0;
        while (true) {
            int pending = feeder.output.pending();
            assertThat(pending).isLessThan(OutputBuffer.HIGH_WATER_MARK + replySize);
            replies += pending / replySize;
            feeder.output.writeTo(OutputStream.nullOutputStream()); // the client took them
            if (next != ByteSession.Next.WRITE_FIRST) {
                break;
            }
            pauses++;
            next = feeder.resume(); // no new bytes: the rest is already buffered
        }
        assertThat(next).isEqualTo(ByteSession.Next.READ_MORE);
        assertThat(replies).isEqualTo(400);
        assertThat(pauses).isGreaterThanOrEqualTo(199);
    }

    @Test
    void aMillionKeyDelArrivingIn64KiBChunksIsParsedInLinearWork() throws IOException {
        int keys = 1_000_000;
        ByteArrayOutputStream command = new ByteArrayOutputStream(16 << 20);
        command.writeBytes(
                ("*" + (keys + 1) + "\r\n$3\r\nDEL\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < keys; i++) {
            String k = "k" + i;
            command.writeBytes(
                    ("$" + k.length() + "\r\n" + k + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        byte[] bytes = command.toByteArray();
        ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        map.put(key("k7"), key("x"));
        RespSession session =
                new RespSession(new ServerContext(new MapStore(map), ServerOptions.defaults()));
        SessionFeeder feeder = new SessionFeeder(session);
        int chunk = 64 * 1024;
        int chunks = 0;
        for (int at = 0; at < bytes.length; at += chunk) {
            feeder.feed(bytes, at, Math.min(bytes.length, at + chunk));
            chunks++;
        }
        assertThat(new String(feeder.output.toByteArray(), StandardCharsets.US_ASCII))
                .isEqualTo(":1\r\n");
        // Each byte is examined once, plus at most one partial argument header (<= 34 bytes) per
        // read. Restarting the command at each read would examine about chunks/2 times the command.
        assertThat(session.parseWork()).isLessThanOrEqualTo(bytes.length + 34L * chunks);
        assertThat(feeder.input.capacity())
                .as("the input buffer holds a chunk, not the command")
                .isLessThan(1 << 18);
    }
}
