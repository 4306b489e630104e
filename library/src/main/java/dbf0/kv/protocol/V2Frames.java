package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Codec.HEADER_BYTES;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A v2 frame's envelope, {@code u32 body length | body}: the length checked against the limit, the
 * header written, and a whole body found in a buffer or read from a stream. What is inside a body
 * is {@link V2Requests}' and {@link V2Responses}' business.
 */
final class V2Frames {

    /** A blocking read grows its body array in steps of at least this, as the bytes arrive. */
    private static final int READ_CHUNK_BYTES = 64 * 1024;

    private V2Frames() {}

    /** Parses one whole frame body; throws {@link MalformedFrameException} for anything wrong. */
    interface BodyParser<T> {
        T parse(ByteBuffer body, ProtocolLimits limits);
    }

    // Writing

    /**
     * Checks the frame limit and the room in {@code out}, writes the header; returns {@code out}.
     */
    static ByteBuffer start(ByteBuffer out, long bodySize, ProtocolLimits limits) {
        int checked = checkBodySize(bodySize, limits);
        if (out.remaining() < HEADER_BYTES + checked) {
            throw new BufferOverflowException();
        }
        V2Fields.putU32(out, checked);
        return out;
    }

    /** A big-endian buffer of exactly the frame's size, its header written. */
    static ByteBuffer allocate(long bodySize, ProtocolLimits limits) {
        int checked = checkBodySize(bodySize, limits);
        return ByteBuffer.allocate(HEADER_BYTES + checked).putInt(checked);
    }

    /** The whole frame's size, header included. Checks no limits. */
    static int size(long bodySize) {
        if (bodySize > ProtocolLimits.MAX_FRAME_CEILING) {
            throw new IllegalArgumentException(
                    "a frame of " + bodySize + " body bytes does not fit in one Java array");
        }
        return HEADER_BYTES + (int) bodySize;
    }

    private static int checkBodySize(long bodySize, ProtocolLimits limits) {
        if (bodySize > limits.maxFrameBytes()) {
            throw new IllegalArgumentException(
                    V2Fields.frameOverLimit(bodySize, limits.maxFrameBytes()));
        }
        return (int) bodySize;
    }

    // Reading

    /** The next frame in a buffer, if all of it is there; see {@link V2Codec#decodeRequest}. */
    static <T> DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits, BodyParser<T> parser)
            throws ProtocolException {
        if (in.remaining() < HEADER_BYTES) {
            return new DecodeResult.Incomplete<>(HEADER_BYTES);
        }
        int start = in.position();
        int raw = in.getInt(start);
        int bodySize =
                checkLength(
                        in.order() == ByteOrder.BIG_ENDIAN ? raw : Integer.reverseBytes(raw),
                        limits);
        if (in.remaining() - HEADER_BYTES < bodySize) {
            return new DecodeResult.Incomplete<>(HEADER_BYTES + bodySize);
        }
        // The slice is big-endian whatever the caller's order, and ends exactly where the frame
        // does.
        ByteBuffer body = in.slice(start + HEADER_BYTES, bodySize);
        in.position(start + HEADER_BYTES + bodySize);
        return parse(body, limits, parser);
    }

    /** Reads the next frame's body from a stream; see {@link V2Codec#readRequest}. */
    static ByteBuffer readBody(InputStream in, ProtocolLimits limits) throws IOException {
        byte[] header = new byte[HEADER_BYTES];
        int got = in.readNBytes(header, 0, HEADER_BYTES);
        if (got == 0) {
            throw new CleanEofException("stream ended between frames");
        }
        if (got < HEADER_BYTES) {
            throw new EOFException(
                    "stream ended mid-frame, after "
                            + got
                            + " of the "
                            + HEADER_BYTES
                            + " length bytes");
        }
        int bodySize = checkLength(ByteBuffer.wrap(header).getInt(), limits);
        byte[] body = new byte[Math.min(bodySize, READ_CHUNK_BYTES)];
        int filled = 0;
        while (true) {
            filled += in.readNBytes(body, filled, body.length - filled);
            if (filled < body.length) {
                throw new EOFException(
                        "stream ended mid-frame, after "
                                + filled
                                + " of "
                                + bodySize
                                + " body bytes");
            }
            if (filled == bodySize) {
                return ByteBuffer.wrap(body);
            }
            body = Arrays.copyOf(body, (int) Math.min(bodySize, 2L * body.length));
        }
    }

    /** A Frame, or Invalid when the body is malformed: the stream stays in step either way. */
    static <T> DecodeResult.Complete<T> parse(
            ByteBuffer body, ProtocolLimits limits, BodyParser<T> parser) {
        try {
            return new DecodeResult.Frame<>(parser.parse(body, limits));
        } catch (MalformedFrameException e) {
            return new DecodeResult.Invalid<>(e.getMessage());
        }
    }

    /** A length header over the limit is fatal: nothing after it can be trusted. */
    private static int checkLength(int bodySize, ProtocolLimits limits) throws ProtocolException {
        if (bodySize < 0 || bodySize > limits.maxFrameBytes()) {
            throw new ProtocolException(
                    V2Fields.frameOverLimit(
                            Integer.toUnsignedLong(bodySize), limits.maxFrameBytes()));
        }
        return bodySize;
    }
}
