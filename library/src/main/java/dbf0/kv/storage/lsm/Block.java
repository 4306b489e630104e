package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One data block read back ({@link BlockBuilder} writes them): checked against its CRC32C once,
 * when read from disk, then searched by binary search over its entry offsets. Immutable, so the
 * block cache shares it between threads.
 */
final class Block {

    private final byte[] data;
    private final int count;
    private final int offsetsAt;

    private Block(byte[] data, int count, int offsetsAt) {
        this.data = data;
        this.count = count;
        this.offsetsAt = offsetsAt;
    }

    /**
     * Checks and parses a block's bytes.
     *
     * @param where the file and offset, for the error
     * @throws CorruptTableException if the checksum or the layout is wrong
     */
    static Block parse(byte[] data, String where) {
        if (data.length < 8) {
            throw new CorruptTableException(where + ": a block of " + data.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(data);
        CRC32C crc = new CRC32C();
        crc.update(data, 0, data.length - 4);
        if ((int) crc.getValue() != in.getInt(data.length - 4)) {
            throw new CorruptTableException(where + ": block checksum mismatch");
        }
        int count = in.getInt(data.length - 8);
        long offsetsAt = data.length - 8 - 4L * count;
        if (count < 0 || offsetsAt < 0) {
            throw new CorruptTableException(where + ": bad entry count " + count);
        }
        Block block = new Block(data, count, (int) offsetsAt);
        for (int i = 0; i < count; i++) {
            int at = block.offset(i);
            if (at < 0 || at + BlockBuilder.ENTRY_HEADER > offsetsAt) {
                throw new CorruptTableException(where + ": entry " + i + " out of the block");
            }
            if (data[at] != Cell.Kind.PUT.code && data[at] != Cell.Kind.DELETE.code) {
                throw new CorruptTableException(where + ": entry " + i + " of unknown kind");
            }
            long end = (long) block.keyStart(i) + block.keyLength(i) + block.valueLength(i);
            if (block.keyLength(i) < 0 || block.valueLength(i) < 0 || end > offsetsAt) {
                throw new CorruptTableException(where + ": entry " + i + " runs out of the block");
            }
        }
        return block;
    }

    int count() {
        return count;
    }

    /** Bytes held, for the cache's weigher. */
    int bytes() {
        return data.length;
    }

    private int offset(int i) {
        return TableFormat.readInt(data, offsetsAt + 4 * i);
    }

    private int keyLength(int i) {
        return TableFormat.readInt(data, offset(i) + 9);
    }

    private int valueLength(int i) {
        return TableFormat.readInt(data, offset(i) + 13);
    }

    private int keyStart(int i) {
        return offset(i) + BlockBuilder.ENTRY_HEADER;
    }

    /** Compares entry {@code i}'s key with {@code key}, unsigned, without copying. */
    int compareKey(int i, ByteArrayWrapper key) {
        int from = keyStart(i);
        byte[] k = key.getArray();
        return Arrays.compareUnsigned(data, from, from + keyLength(i), k, 0, k.length);
    }

    /** The first entry whose key is at least {@code key}; {@link #count} if none. */
    int seek(ByteArrayWrapper key) {
        return LowerBound.of(count, i -> compareKey(i, key) < 0);
    }

    ByteArrayWrapper key(int i) {
        int from = keyStart(i);
        return new ByteArrayWrapper(Arrays.copyOfRange(data, from, from + keyLength(i)));
    }

    Cell cell(int i) {
        int at = offset(i);
        Cell.Kind kind = Cell.Kind.of(data[at]);
        long seq = TableFormat.readLong(data, at + 1);
        if (kind == Cell.Kind.DELETE) {
            return Cell.tombstone(seq);
        }
        int from = keyStart(i) + keyLength(i);
        return Cell.put(
                seq, new ByteArrayWrapper(Arrays.copyOfRange(data, from, from + valueLength(i))));
    }
}
