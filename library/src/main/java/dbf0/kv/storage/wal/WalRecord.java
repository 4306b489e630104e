package dbf0.kv.storage.wal;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * One change to the data, as the log stores it. The bytes (all integers big-endian; docs/formats.md
 * has them byte by byte, src/test/resources/vectors/wal-records.json has examples):
 *
 * <pre>
 *   u32 bodyLength   the body's length in bytes, 1 .. {@value #MAX_BODY_BYTES}
 *   u32 crc          CRC32C (Castagnoli) of the body's bytes
 *   body:
 *     'P' 0x50  u32 keyLength, key, u32 valueLength, value      put
 *     'D' 0x44  u32 keyLength, key                              delete
 *     'C' 0x43                                                  clear (every key)
 * </pre>
 *
 * Why a length and a checksum before every record: a crash can stop the last write anywhere, and a
 * disk can hand back wrong bytes. The length says where the next record starts without trusting the
 * body, and the checksum says whether the body is the one written. CRC32C, because the JDK computes
 * it with the CPU's own instruction, and it catches every burst error up to 32 bits. The body's
 * fields must add up to exactly its length, so a record that checks out also parses.
 */
public sealed interface WalRecord {

    byte PUT = 'P';
    byte DELETE = 'D';
    byte CLEAR = 'C';

    /** Length and checksum. */
    int HEADER_BYTES = 8;

    /**
     * The largest body a record may have. A length field above it is corruption, never a record:
     * recovery then needs no buffer bigger than this, whatever garbage it reads.
     */
    int MAX_BODY_BYTES = 1 << 30;

    /** A put of {@code value} under {@code key}. */
    record Put(ByteArrayWrapper key, ByteArrayWrapper value) implements WalRecord {
        public Put {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }

    /** A delete of {@code key}. */
    record Delete(ByteArrayWrapper key) implements WalRecord {
        public Delete {
            Objects.requireNonNull(key, "key");
        }
    }

    /** The removal of every key. */
    record Clear() implements WalRecord {}

    /** The body's length. */
    static long bodySize(WalRecord record) {
        return switch (record) {
            case Put p -> 1L + 4 + p.key().length() + 4 + p.value().length();
            case Delete d -> 1L + 4 + d.key().length();
            case Clear c -> 1L;
        };
    }

    /** The record's length in the log, header included. */
    static long encodedSize(WalRecord record) {
        return HEADER_BYTES + bodySize(record);
    }

    /**
     * Appends the record's bytes at {@code out}'s position.
     *
     * @throws IllegalArgumentException when the body would pass {@link #MAX_BODY_BYTES}
     */
    static void encode(WalRecord record, ByteBuffer out) {
        long body = bodySize(record);
        if (body > MAX_BODY_BYTES) {
            throw new IllegalArgumentException(
                    "a log record holds at most " + MAX_BODY_BYTES + " bytes, this one " + body);
        }
        int start = out.position();
        out.putInt((int) body);
        out.putInt(0); // the checksum, filled in below once the body is in place
        int bodyStart = out.position();
        switch (record) {
            case Put p -> {
                out.put(PUT);
                putField(out, p.key());
                putField(out, p.value());
            }
            case Delete d -> {
                out.put(DELETE);
                putField(out, d.key());
            }
            case Clear c -> out.put(CLEAR);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.duplicate().position(bodyStart).limit(out.position()));
        out.putInt(start + 4, (int) crc.getValue());
    }

    /** The record's bytes in a new array. */
    static byte[] encode(WalRecord record) {
        ByteBuffer out = ByteBuffer.allocate((int) encodedSize(record));
        encode(record, out);
        return out.array();
    }

    private static void putField(ByteBuffer out, ByteArrayWrapper bytes) {
        out.putInt(bytes.length());
        out.put(bytes.getArray());
    }

    /** What {@link #decode} found at the buffer's position. */
    sealed interface Decoded {}

    /** A whole, checked record of {@code size} bytes. */
    record Good(WalRecord record, int size) implements Decoded {}

    /**
     * The buffer ends inside a record whose header looks sane: {@code needed} bytes make it whole.
     */
    record Partial(int needed) implements Decoded {}

    /**
     * Bytes that are no record: a length out of range, a wrong checksum, fields that do not add up.
     */
    record Bad(String reason) implements Decoded {}

    /**
     * Decodes one record at {@code in}'s position without moving it. The caller decides what a
     * {@link Partial} at the end of the file or a {@link Bad} means (see {@link WalReader}).
     */
    static Decoded decode(ByteBuffer in) {
        int at = in.position();
        int available = in.remaining();
        if (available < HEADER_BYTES) {
            return new Partial(HEADER_BYTES);
        }
        int body = in.getInt(at);
        if (body < 1 || body > MAX_BODY_BYTES) {
            return new Bad(
                    "body length "
                            + Integer.toUnsignedLong(body)
                            + " is outside 1.."
                            + MAX_BODY_BYTES);
        }
        if (available - HEADER_BYTES < body) {
            return new Partial(HEADER_BYTES + body);
        }
        int expected = in.getInt(at + 4);
        CRC32C crc = new CRC32C();
        crc.update(in.duplicate().position(at + HEADER_BYTES).limit(at + HEADER_BYTES + body));
        if ((int) crc.getValue() != expected) {
            return new Bad(
                    String.format(
                            "checksum %08x does not match the body's %08x",
                            expected, (int) crc.getValue()));
        }
        int p = at + HEADER_BYTES;
        int end = p + body;
        byte op = in.get(p++);
        try {
            WalRecord record =
                    switch (op) {
                        case PUT -> {
                            ByteArrayWrapper key = field(in, p, end);
                            p += 4 + key.length();
                            ByteArrayWrapper value = field(in, p, end);
                            p += 4 + value.length();
                            yield new Put(key, value);
                        }
                        case DELETE -> {
                            ByteArrayWrapper key = field(in, p, end);
                            p += 4 + key.length();
                            yield new Delete(key);
                        }
                        case CLEAR -> new Clear();
                        default ->
                                throw new IllegalStateException(
                                        String.format("unknown operation byte 0x%02x", op & 0xff));
                    };
            if (p != end) {
                return new Bad(
                        "fields take "
                                + (p - at - HEADER_BYTES)
                                + " of the body's "
                                + body
                                + " bytes");
            }
            return new Good(record, HEADER_BYTES + body);
        } catch (IllegalStateException e) {
            return new Bad(e.getMessage());
        }
    }

    private static ByteArrayWrapper field(ByteBuffer in, int at, int end) {
        if (end - at < 4) {
            throw new IllegalStateException("a field's length runs past the body");
        }
        int length = in.getInt(at);
        if (length < 0 || length > end - at - 4) {
            throw new IllegalStateException(
                    "a field of " + Integer.toUnsignedLong(length) + " bytes runs past the body");
        }
        byte[] bytes = new byte[length];
        in.get(at + 4, bytes);
        return new ByteArrayWrapper(bytes);
    }
}
