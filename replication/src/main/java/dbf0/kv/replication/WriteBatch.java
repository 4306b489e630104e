package dbf0.kv.replication;

import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one log entry, in the order they are applied: the puts, deletes and clears one
 * flush gathered from every connection, so that a pipelined or busy shard pays Raft's per-entry
 * cost once for many writes (etcd and TiKV batch proposals the same way). The bytes, in
 * docs/formats.md:
 *
 * <pre>
 * entry  = version:u8 (1)  count:varint  op*
 * op     = 'P' key value | 'D' key | 'C'
 * key    = length:varint bytes        value = length:varint bytes
 * </pre>
 *
 * Varints are unsigned LEB128, as in protobuf. Ratis checksums each entry in its log segments, so
 * the entry carries no CRC of its own.
 */
public final class WriteBatch {

    static final byte VERSION = 1;
    static final byte PUT = 'P';
    static final byte DELETE = 'D';
    static final byte CLEAR = 'C';

    /** One write: its kind, and its key and value where it has them. */
    public record Op(byte kind, ByteArrayWrapper key, ByteArrayWrapper value) {

        /** A put. */
        public static Op put(ByteArrayWrapper key, ByteArrayWrapper value) {
            return new Op(PUT, key, value);
        }

        /** A delete. */
        public static Op delete(ByteArrayWrapper key) {
            return new Op(DELETE, key, null);
        }

        /** A clear: every key removed. */
        public static Op clear() {
            return new Op(CLEAR, null, null);
        }
    }

    private WriteBatch() {}

    /** The entry's bytes. */
    public static byte[] encode(List<Op> ops) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 32 * ops.size());
        out.write(VERSION);
        varint(out, ops.size());
        for (Op op : ops) {
            out.write(op.kind());
            if (op.kind() != CLEAR) {
                bytes(out, op.key().getArray());
            }
            if (op.kind() == PUT) {
                bytes(out, op.value().getArray());
            }
        }
        return out.toByteArray();
    }

    /**
     * The writes of an entry.
     *
     * @throws IllegalArgumentException naming what is wrong, for bytes that are not an entry: no
     *     length is believed beyond the bytes that are there
     */
    public static List<Op> decode(ByteBuffer in) {
        if (!in.hasRemaining() || in.get() != VERSION) {
            throw new IllegalArgumentException("not a version 1 write batch");
        }
        int count = varint(in);
        List<Op> ops = new ArrayList<>(Math.min(count, in.remaining())); // each op takes a byte
        for (int i = 0; i < count; i++) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("write batch ends after " + i + " of " + count);
            }
            byte kind = in.get();
            switch (kind) {
                case PUT -> ops.add(Op.put(bytes(in), bytes(in)));
                case DELETE -> ops.add(Op.delete(bytes(in)));
                case CLEAR -> ops.add(Op.clear());
                default -> throw new IllegalArgumentException("unknown write kind " + kind);
            }
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the last write");
        }
        return ops;
    }

    private static void bytes(ByteArrayOutputStream out, byte[] b) {
        varint(out, b.length);
        out.writeBytes(b);
    }

    private static ByteArrayWrapper bytes(ByteBuffer in) {
        int length = varint(in);
        if (length > in.remaining()) {
            throw new IllegalArgumentException(
                    "a length of " + length + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[length];
        in.get(b);
        return new ByteArrayWrapper(b);
    }

    static void varint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    static int varint(ByteBuffer in) {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("a varint cut short");
            }
            byte b = in.get();
            if (shift == 28 && (b & 0x78) != 0) {
                throw new IllegalArgumentException("a varint past 2^31 - 1");
            }
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("a varint of more than 5 bytes");
    }
}
