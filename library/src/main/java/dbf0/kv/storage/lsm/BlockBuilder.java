package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Builds one data block (docs/formats.md): the entries back to back, then the offset of each entry
 * as a u32, the entry count as a u32, and a CRC32C of everything before it. Big-endian. A block is
 * closed once it reaches {@link #TARGET_BYTES}; an entry larger than that gets a block alone.
 *
 * <p>An entry: u8 kind, u64 sequence number, u32 key length, u32 value length (0 for a tombstone),
 * the key, the value. No prefix compression: simpler to read, and with values of a kilobyte the
 * keys are a small part of a block anyway.
 */
final class BlockBuilder {

    /** The size a data block is closed at: one page of most disks and file systems. */
    static final int TARGET_BYTES = 4096;

    /** Kind, sequence number and the two lengths. */
    static final int ENTRY_HEADER = 1 + 8 + 4 + 4;

    private ByteBuffer entries = ByteBuffer.allocate(2 * TARGET_BYTES);
    private int[] offsets = new int[64];
    private int count;
    private ByteArrayWrapper firstKey;
    private ByteArrayWrapper lastKey;

    boolean isEmpty() {
        return count == 0;
    }

    /** The block's size if closed now. */
    int size() {
        return entries.position() + 4 * count + 8;
    }

    ByteArrayWrapper firstKey() {
        return firstKey;
    }

    ByteArrayWrapper lastKey() {
        return lastKey;
    }

    /** Adds an entry; keys must come in ascending order. */
    void add(ByteArrayWrapper key, Cell cell) {
        int need = ENTRY_HEADER + key.length() + cell.valueLength();
        if (entries.remaining() < need) {
            int grown = Math.max(entries.capacity() * 2, entries.position() + need);
            entries = ByteBuffer.allocate(grown).put(entries.flip());
        }
        if (count == offsets.length) {
            offsets = java.util.Arrays.copyOf(offsets, count * 2);
        }
        offsets[count++] = entries.position();
        entries.put((byte) cell.kind().code);
        entries.putLong(cell.seq());
        entries.putInt(key.length());
        entries.putInt(cell.valueLength());
        entries.put(key.getArray());
        if (cell.value() != null) {
            entries.put(cell.value().getArray());
        }
        if (firstKey == null) {
            firstKey = key;
        }
        lastKey = key;
    }

    /** Writes the finished block into {@code out} and starts an empty one. */
    void finish(ByteBuffer out) {
        int start = out.position();
        out.put(entries.flip());
        for (int i = 0; i < count; i++) {
            out.putInt(offsets[i]);
        }
        out.putInt(count);
        CRC32C crc = new CRC32C();
        crc.update(out.duplicate().position(start).limit(out.position()));
        out.putInt((int) crc.getValue());
        entries.clear();
        if (entries.capacity() > 4 * TARGET_BYTES) {
            entries = ByteBuffer.allocate(2 * TARGET_BYTES); // a huge value's block is not kept
        }
        count = 0;
        firstKey = null;
        lastKey = null;
    }
}
