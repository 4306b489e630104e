package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.DELETE;
import static dbf0.kv.protocol.V2Codec.ERROR;
import static dbf0.kv.protocol.V2Codec.GET;
import static dbf0.kv.protocol.V2Codec.NOT_FOUND;
import static dbf0.kv.protocol.V2Codec.OK;
import static dbf0.kv.protocol.V2Codec.PING;
import static dbf0.kv.protocol.V2Codec.RANGE;
import static dbf0.kv.protocol.V2Codec.SET;
import static dbf0.kv.protocol.V2Codec.VALUE;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The pieces every v2 body is made of: u32 numbers, length-prefixed fields and the type byte, read
 * and written; and the messages the writer's refusals and the reader's Invalid results share.
 */
final class V2Fields {

    /** A field's length, and a batch's count: a big-endian u32. */
    static final int LENGTH_BYTES = 4;

    private V2Fields() {}

    // Writing

    /** A key field's size; checks the key limit unless {@code limits} is null. */
    static long keyField(ByteArrayWrapper key, ProtocolLimits limits) {
        if (limits != null && key.length() > limits.maxKeyBytes()) {
            throw new IllegalArgumentException(
                    overLimit("key", key.length(), limits.maxKeyBytes()));
        }
        return LENGTH_BYTES + key.length();
    }

    /** A value field's size; checks the value limit unless {@code limits} is null. */
    static long valueField(ByteArrayWrapper value, ProtocolLimits limits) {
        if (limits != null && value.length() > limits.maxValueBytes()) {
            throw new IllegalArgumentException(
                    overLimit("value", value.length(), limits.maxValueBytes()));
        }
        return LENGTH_BYTES + value.length();
    }

    static void putField(ByteBuffer out, byte[] bytes) {
        putU32(out, bytes.length);
        out.put(bytes);
    }

    /** Big-endian, even into a buffer the caller set to little-endian. */
    static void putU32(ByteBuffer out, int value) {
        out.putInt(out.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }

    // Reading: each throws MalformedFrameException for what is wrong inside the body

    static byte firstType(ByteBuffer body) {
        if (!body.hasRemaining()) {
            throw new MalformedFrameException("empty frame: a frame body starts with a type byte");
        }
        return body.get();
    }

    static void requireEnd(ByteBuffer body, byte type) {
        int left = body.remaining();
        if (left > 0) {
            String hint = type == BATCH ? " (is its count smaller than the items sent?)" : "";
            throw new MalformedFrameException(
                    left
                            + (left == 1 ? " trailing byte" : " trailing bytes")
                            + " after the "
                            + typeName(type)
                            + hint);
        }
    }

    /** A field: its u32 length, checked against what is left and the limit, then the bytes. */
    static ByteArrayWrapper field(ByteBuffer body, String what, int limit) {
        long length = Integer.toUnsignedLong(u32(body, what + " length"));
        if (length > body.remaining()) {
            throw new MalformedFrameException(
                    what
                            + " of "
                            + length
                            + " bytes runs past the end of the frame ("
                            + body.remaining()
                            + " bytes left)");
        }
        if (length > limit) {
            throw new MalformedFrameException(overLimit(what, length, limit));
        }
        byte[] bytes = new byte[(int) length];
        body.get(bytes);
        return new ByteArrayWrapper(bytes);
    }

    static int u32(ByteBuffer body, String what) {
        if (body.remaining() < LENGTH_BYTES) {
            throw new MalformedFrameException(
                    "the frame ends inside the "
                            + what
                            + " ("
                            + body.remaining()
                            + " of "
                            + LENGTH_BYTES
                            + " bytes)");
        }
        return body.getInt();
    }

    // Messages

    static String overLimit(String what, long size, int limit) {
        return what + " of " + size + " bytes exceeds the " + limit + "-byte limit";
    }

    static String batchOverLimit(long count, int limit) {
        return "batch of " + count + " ops exceeds the " + limit + "-op limit";
    }

    static String frameOverLimit(long bodySize, int limit) {
        return "frame of " + bodySize + " bytes exceeds the " + limit + "-byte limit";
    }

    static String typeName(byte type) {
        return switch (type) {
            case GET -> "GET";
            case SET -> "SET";
            case DELETE -> "DELETE";
            case PING -> "PING";
            case BATCH -> "BATCH";
            case RANGE -> "RANGE";
            case V2Codec.TOPOLOGY -> "TOPOLOGY";
            case V2Codec.MOVED -> "MOVED";
            case VALUE -> "VALUE";
            case NOT_FOUND -> "NOT_FOUND";
            case OK -> "OK";
            case ERROR -> "ERROR";
            default -> describe(type);
        };
    }

    /** {@code 0x78 ('x')} for printable ASCII, {@code 0x9c} otherwise. */
    static String describe(byte type) {
        return type >= 0x20 && type < 0x7f
                ? String.format("0x%02x ('%c')", type, (char) type)
                : String.format("0x%02x", type & 0xff);
    }
}
