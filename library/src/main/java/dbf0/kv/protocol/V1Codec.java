package dbf0.kv.protocol;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.common.ByteArrayWrapper;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The seed protocol (v1), byte for byte. It is what the 2020 study's figures were measured with, so
 * it never changes; newer protocols live beside it.
 *
 * <pre>
 *  request   SET  's' (0x73) | klen | key bytes | vlen | value bytes      no response
 *            GET  'g' (0x67) | klen | key bytes
 *  response  FOUND     'f' (0x66) | vlen | value bytes
 *            NOT FOUND 'n' (0x6E)
 *  klen, vlen: one unsigned byte, 0..127
 * </pre>
 *
 * One operation per TCP connection: the client connects, sends one request, reads the response if
 * there is one, and the connection is closed. Test vectors: {@code
 * src/test/resources/vectors/seed-protocol.json}.
 */
public final class V1Codec {

    public static final byte SET = 's';
    public static final byte GET = 'g';
    public static final byte FOUND = 'f';
    public static final byte NOT_FOUND = 'n';

    /** The largest array a one-byte prefix may announce (the top bit is reserved). */
    public static final int MAX_LENGTH = 127;

    private V1Codec() {}

    /** Size of {@code bytes} once written with its prefix. */
    public static int encodedLength(ByteArrayWrapper bytes) {
        return 1 + bytes.length();
    }

    /**
     * Writes the length prefix and the bytes.
     *
     * @throws IllegalArgumentException if longer than {@link #MAX_LENGTH}; nothing is written then
     */
    public static void writeBytes(OutputStream out, ByteArrayWrapper bytes) throws IOException {
        checkLength(bytes);
        out.write(bytes.length());
        out.write(bytes.getArray());
    }

    /** Throws {@link IllegalArgumentException} if {@code bytes} cannot be written with a prefix. */
    public static void checkLength(ByteArrayWrapper bytes) {
        checkArgument(
                bytes.length() <= MAX_LENGTH,
                "v1 arrays are at most %s bytes (one-byte length prefix), got %s",
                MAX_LENGTH,
                bytes.length());
    }

    /**
     * Reads a length prefix and exactly that many bytes.
     *
     * @throws EOFException if the stream ends before or inside the array
     * @throws ProtocolException if the prefix is above 127
     */
    public static ByteArrayWrapper readBytes(InputStream in) throws IOException {
        int length = in.read();
        if (length < 0) {
            throw new EOFException("stream ended where a length prefix was expected");
        }
        if (length > MAX_LENGTH) {
            throw new ProtocolException(String.format("length prefix 0x%02x is above 127", length));
        }
        byte[] array = in.readNBytes(length);
        if (array.length != length) {
            throw new EOFException(
                    "stream ended after " + array.length + " of " + length + " bytes");
        }
        return new ByteArrayWrapper(array);
    }

    /** Encodes a whole SET request, so that it leaves in one write. */
    public static byte[] encodeSet(ByteArrayWrapper key, ByteArrayWrapper value) {
        checkLength(key);
        checkLength(value);
        byte[] frame = new byte[1 + encodedLength(key) + encodedLength(value)];
        frame[0] = SET;
        int at = put(frame, 1, key);
        put(frame, at, value);
        return frame;
    }

    /** Encodes a whole GET request. */
    public static byte[] encodeGet(ByteArrayWrapper key) {
        checkLength(key);
        byte[] frame = new byte[1 + encodedLength(key)];
        frame[0] = GET;
        put(frame, 1, key);
        return frame;
    }

    /** Encodes a GET response: FOUND with the value, or NOT_FOUND when {@code value} is null. */
    public static byte[] encodeGetResponse(ByteArrayWrapper value) {
        if (value == null) {
            return new byte[] {NOT_FOUND};
        }
        checkLength(value);
        byte[] frame = new byte[1 + encodedLength(value)];
        frame[0] = FOUND;
        put(frame, 1, value);
        return frame;
    }

    /**
     * Reads a GET response.
     *
     * @return the value, or null for NOT_FOUND
     */
    public static ByteArrayWrapper readGetResponse(InputStream in) throws IOException {
        int kind = in.read();
        return switch (kind) {
            case FOUND -> readBytes(in);
            case NOT_FOUND -> null;
            case -1 -> throw new EOFException("stream ended where a GET response was expected");
            default ->
                    throw new ProtocolException(
                            String.format("unknown response byte 0x%02x", kind));
        };
    }

    /**
     * One decoded v1 request; {@code value} is null for a GET. (Not named Request: that is v2's,
     * {@link dbf0.kv.protocol.Request}.)
     */
    public record V1Request(byte op, ByteArrayWrapper key, ByteArrayWrapper value) {}

    /**
     * Decodes the request at the front of {@code in} (read mode), for the event loop (chapter 2),
     * which parses whatever bytes have arrived instead of blocking for the rest.
     *
     * @return a {@link DecodeResult.Frame} holding the request, consumed from {@code in}; or {@link
     *     DecodeResult.Incomplete}, consuming nothing, when the buffer does not hold the whole
     *     request yet. Never {@link DecodeResult.Invalid}: every v1 error breaks the framing.
     * @throws ProtocolException for an unknown operation byte or a length prefix above 127
     */
    public static DecodeResult<V1Request> decodeRequest(ByteBuffer in) throws ProtocolException {
        int start = in.position();
        int available = in.remaining();
        if (available < 2) {
            // The shortest request is a GET of the empty key, op and prefix; a SET needs one more.
            int shortest = available == 1 && checkOp(in.get(start)) == SET ? 3 : 2;
            return new DecodeResult.Incomplete<>(shortest);
        }
        byte op = checkOp(in.get(start));
        int keyLength = prefix(in.get(start + 1));
        int keyEnd = start + 2 + keyLength;
        if (op == GET) {
            if (in.limit() < keyEnd) {
                return new DecodeResult.Incomplete<>(keyEnd - start);
            }
            ByteArrayWrapper key = slice(in, start + 2, keyLength);
            in.position(keyEnd);
            return new DecodeResult.Frame<>(new V1Request(op, key, null));
        }
        if (in.limit() < keyEnd + 1) {
            return new DecodeResult.Incomplete<>(keyEnd + 1 - start);
        }
        int valueLength = prefix(in.get(keyEnd));
        int end = keyEnd + 1 + valueLength;
        if (in.limit() < end) {
            return new DecodeResult.Incomplete<>(end - start);
        }
        ByteArrayWrapper key = slice(in, start + 2, keyLength);
        ByteArrayWrapper value = slice(in, keyEnd + 1, valueLength);
        in.position(end);
        return new DecodeResult.Frame<>(new V1Request(op, key, value));
    }

    private static byte checkOp(byte op) throws ProtocolException {
        if (op != SET && op != GET) {
            throw new ProtocolException(String.format("unknown operation byte 0x%02x", op & 0xff));
        }
        return op;
    }

    private static int prefix(byte b) throws ProtocolException {
        int length = b & 0xff;
        if (length > MAX_LENGTH) {
            throw new ProtocolException(String.format("length prefix 0x%02x is above 127", length));
        }
        return length;
    }

    private static ByteArrayWrapper slice(ByteBuffer in, int from, int length) {
        byte[] bytes = new byte[length];
        in.get(from, bytes);
        return new ByteArrayWrapper(bytes);
    }

    private static int put(byte[] frame, int at, ByteArrayWrapper bytes) {
        frame[at] = (byte) bytes.length();
        System.arraycopy(bytes.getArray(), 0, frame, at + 1, bytes.length());
        return at + 1 + bytes.length();
    }
}
