package dbf0.kv.server;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Test helper: protocol v2 frames written out byte by byte from the spec, not with V2Codec, so that
 * a server test does not trust the codec it is testing.
 */
final class RawV2 {

    static final byte[] PREAMBLE = {(byte) 0xDB, 0x02};

    private RawV2() {}

    static byte[] frame(byte[] body) {
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    static byte[] ping() {
        return new byte[] {'P'};
    }

    static byte[] get(String key) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + 4 + k.length)
                .put((byte) 'G')
                .putInt(k.length)
                .put(k)
                .array();
    }

    static byte[] set(String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + 4 + k.length + 4 + value.length)
                .put((byte) 'S')
                .putInt(k.length)
                .put(k)
                .putInt(value.length)
                .put(value)
                .array();
    }

    static byte[] delete(String key) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + 4 + k.length)
                .put((byte) 'D')
                .putInt(k.length)
                .put(k)
                .array();
    }

    /** A VALUE reply's body, as a GET that found {@code value} is answered. */
    static byte[] value(byte[] value) {
        return ByteBuffer.allocate(1 + 4 + value.length)
                .put((byte) 'V')
                .putInt(value.length)
                .put(value)
                .array();
    }

    /** A batch body: 'B', the count, then the operations' bodies back to back. */
    static byte[] batch(byte[]... ops) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('B');
        out.writeBytes(ByteBuffer.allocate(4).putInt(ops.length).array());
        for (byte[] op : ops) {
            out.writeBytes(op);
        }
        return out.toByteArray();
    }

    /** {@code count} copies of one frame, back to back: a pipeline in one write. */
    static byte[] repeat(byte[] frame, int count) {
        ByteBuffer all = ByteBuffer.allocate(frame.length * count);
        for (int i = 0; i < count; i++) {
            all.put(frame);
        }
        return all.array();
    }

    /** The next reply frame's body, or null at a clean end of stream. */
    static byte[] readReply(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int first = data.read();
        if (first < 0) {
            return null;
        }
        int length =
                (first << 24)
                        | (data.readUnsignedByte() << 16)
                        | (data.readUnsignedByte() << 8)
                        | data.readUnsignedByte();
        byte[] body = new byte[length];
        data.readFully(body);
        return body;
    }

    /** An ERROR reply's message. */
    static String errorMessage(byte[] body) {
        if (body[0] != 'E') {
            throw new AssertionError("not an ERROR reply: type '" + (char) body[0] + "'");
        }
        int length = ByteBuffer.wrap(body, 1, 4).getInt();
        return new String(body, 5, length, StandardCharsets.UTF_8);
    }
}
