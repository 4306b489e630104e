package dbf0.kv.bench;

import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.V2Codec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One server's part of a frame that a sharded connector sends: the v2 frame's bytes, written
 * straight from the drawn operations, and the kind of each operation in it ({@link FrameSource}'s
 * kinds, to count the reply by). A part is kept until its server answers, so that one answered
 * MOVED can be taken apart again and resent ({@link FrameSplitter#resplit}).
 *
 * <p>Reused frame after frame: no object per operation. Memory: its buffer grows to the largest
 * part it has held, which the frame limit bounds.
 */
final class FramePart {

    /** The header: the body's length, then for a batch its type and count. */
    private static final int SINGLE_HEADER = V2Codec.HEADER_BYTES;

    private static final int BATCH_HEADER = V2Codec.HEADER_BYTES + 1 + 4;

    private ByteBuffer bytes = ByteBuffer.allocate(256);
    private byte[] kinds = new byte[16];
    private int count;
    private boolean batch;

    /** Empties the part for the next frame. */
    void clear() {
        count = 0;
        bytes.clear();
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** How many operations the part holds. */
    int count() {
        return count;
    }

    /** The kinds of its operations, the first {@link #count()} of them. */
    byte[] kinds() {
        return kinds;
    }

    /** Whether the part went as a BATCH frame (else as a single request). */
    boolean batch() {
        return batch;
    }

    /**
     * Appends part {@code i} of {@code op}; the first operation writes the frame's header.
     *
     * @param batch whether the frame is a BATCH, decided once per frame
     */
    void add(DrawnOp op, int i, boolean batch) {
        begin(batch);
        op.put(reserve(op.size(i)), i);
        kind(op.kinds[i]);
    }

    /** Appends one operation copied as it lies in {@code from}'s bytes, of kind {@code kind}. */
    void add(FramePart from, int offset, int length, byte kind, boolean batch) {
        begin(batch);
        reserve(length).put(from.bytes.array(), offset, length);
        kind(kind);
    }

    private void begin(boolean asBatch) {
        if (count > 0) {
            return;
        }
        batch = asBatch;
        bytes.clear();
        bytes.putInt(0); // the length, filled in by finish
        if (asBatch) {
            bytes.put(V2Codec.BATCH).putInt(0);
        }
    }

    private void kind(byte kind) {
        if (count == kinds.length) {
            kinds = Arrays.copyOf(kinds, 2 * count);
        }
        kinds[count++] = kind;
    }

    private ByteBuffer reserve(int n) {
        if (bytes.remaining() < n) {
            ByteBuffer bigger =
                    ByteBuffer.allocate(Math.max(2 * bytes.capacity(), bytes.position() + n));
            bytes.flip();
            bytes = bigger.put(bytes);
        }
        return bytes;
    }

    /**
     * Fills in the header once every operation is in.
     *
     * @throws IllegalArgumentException if the frame breaks a limit, as the encoder would
     */
    void finish(ProtocolLimits limits) {
        int body = bytes.position() - V2Codec.HEADER_BYTES;
        if (body > limits.maxFrameBytes() || (batch && count > limits.maxBatchOps())) {
            throw new IllegalArgumentException(
                    "a frame of " + body + " bytes, " + count + " operations, over the limit");
        }
        bytes.putInt(0, body);
        if (batch) {
            bytes.putInt(SINGLE_HEADER + 1, count);
        }
    }

    /** Writes the finished frame. */
    void writeTo(OutputStream out) throws IOException {
        out.write(bytes.array(), 0, bytes.position());
    }

    /** The finished frame's bytes, a copy (tests). */
    byte[] toByteArray() {
        return Arrays.copyOf(bytes.array(), bytes.position());
    }

    /** Where the first operation starts: after the header. */
    int firstOp() {
        return batch ? BATCH_HEADER : SINGLE_HEADER;
    }

    /** The length of the operation at {@code offset}: type, key field, and a SET's value field. */
    int opLength(int offset) {
        int keyLength = bytes.getInt(offset + 1);
        int length = 1 + 4 + keyLength;
        if (bytes.get(offset) == V2Codec.SET) {
            length += 4 + bytes.getInt(offset + length);
        }
        return length;
    }

    /** A copy of the key of the operation at {@code offset}. */
    byte[] key(int offset) {
        int keyLength = bytes.getInt(offset + 1);
        return Arrays.copyOfRange(bytes.array(), offset + 5, offset + 5 + keyLength);
    }
}
