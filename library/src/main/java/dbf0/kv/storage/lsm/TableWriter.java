package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Writes one table (docs/formats.md) from cells given in key order: data blocks gathered into a
 * large buffer and written with few big sequential writes, then the filter, the index and the
 * footer, then one force. The caller makes the new name durable (a directory sync) and only then
 * names the table in the manifest.
 *
 * <p>It also counts, for the store's key estimate ({@link KeyEstimate}), its new keys (puts over no
 * older put) and removed keys (tombstones over an older put), asking the older tables what they
 * hold of each key through {@link Older}: their bloom filters, in memory, no disk read. Beside the
 * filter of every key it writes a filter of its tombstones' keys, which later tables ask in turn.
 */
final class TableWriter {

    /** What the tables older than the one being written hold of a key. */
    @FunctionalInterface
    interface Older {
        /** Nothing is older: every put is a new key, no tombstone removes one. */
        Older NOTHING = (key, hash) -> KeyEstimate.Below.NOTHING;

        /**
         * @param hash the key's {@link Bloom#hash}
         * @return the kind of the key's newest older cell, as far as the filters tell
         */
        KeyEstimate.Below newest(ByteArrayWrapper key, long hash);
    }

    /** Bytes gathered before one write call. */
    static final int WRITE_BUFFER_BYTES = 1 << 20;

    private final WalFile file;
    private final long number;
    private final Older older;
    private final BlockBuilder block = new BlockBuilder();
    private ByteBuffer buffer = ByteBuffer.allocate(WRITE_BUFFER_BYTES);
    private ByteBuffer index = ByteBuffer.allocate(4096);
    private int blocks;
    private long[] hashes = new long[1024];
    private long[] tombstoneHashes = new long[16];
    private int tombstones;
    private long entries;
    private long written;
    private long maxSeq;
    private int maxValue;
    private long newKeys;
    private long removedKeys;
    private ByteArrayWrapper smallest;
    private ByteArrayWrapper largest;

    TableWriter(WalFile file, long number, Older older) {
        this.file = file;
        this.number = number;
        this.older = older;
    }

    /** Adds a cell; keys must be strictly ascending. */
    void add(ByteArrayWrapper key, Cell cell) throws IOException {
        if (smallest == null) {
            smallest = key;
        }
        largest = key;
        if (entries == hashes.length) {
            hashes = Arrays.copyOf(hashes, hashes.length * 2);
        }
        long hash = Bloom.hash(key);
        hashes[(int) entries++] = hash;
        int counted = KeyEstimate.counted(cell, older.newest(key, hash));
        newKeys += counted > 0 ? 1 : 0;
        removedKeys += counted < 0 ? 1 : 0;
        if (cell.isTombstone()) {
            if (tombstones == tombstoneHashes.length) {
                tombstoneHashes = Arrays.copyOf(tombstoneHashes, tombstones * 2);
            }
            tombstoneHashes[tombstones++] = hash;
        }
        maxSeq = Math.max(maxSeq, cell.seq());
        maxValue = Math.max(maxValue, cell.valueLength());
        block.add(key, cell);
        if (block.size() >= BlockBuilder.TARGET_BYTES) {
            finishBlock();
        }
    }

    long entries() {
        return entries;
    }

    /** Bytes the table will have so far, roughly: for splitting a compaction's output. */
    long estimatedBytes() {
        return written + buffer.position() + block.size();
    }

    private void finishBlock() throws IOException {
        if (block.isEmpty()) {
            return;
        }
        ByteArrayWrapper first = block.firstKey();
        ByteArrayWrapper last = block.lastKey();
        ensure(block.size());
        long offset = written + buffer.position();
        block.finish(buffer);
        int length = (int) (written + buffer.position() - offset);
        // This entry, and room kept for the block count that ends the index.
        int need = 8 + 4 + 4 + first.length() + 4 + last.length() + 4;
        if (index.remaining() < need) {
            index =
                    ByteBuffer.allocate(Math.max(index.capacity() * 2, index.position() + need))
                            .put(index.flip());
        }
        index.putLong(offset).putInt(length);
        index.putInt(first.length()).put(first.getArray());
        index.putInt(last.length()).put(last.getArray());
        blocks++;
    }

    /** Room for {@code bytes} in the buffer: writes it out first if needed. */
    private void ensure(int bytes) throws IOException {
        if (buffer.remaining() >= bytes) {
            return;
        }
        drain();
        if (buffer.capacity() < bytes) {
            buffer = ByteBuffer.allocate(bytes);
        }
    }

    private void drain() throws IOException {
        buffer.flip();
        int n = buffer.remaining();
        file.write(buffer, written);
        written += n;
        buffer.clear();
    }

    /** Writes the rest, forces the file, and returns what the manifest needs to know of it. */
    TableMeta finish() throws IOException {
        if (entries == 0) {
            throw new IllegalStateException("an empty table");
        }
        finishBlock();
        Bloom bloom = Bloom.forKeys(entries);
        for (int i = 0; i < entries; i++) {
            bloom.add(hashes[i]);
        }
        Bloom tombstoneBloom = Bloom.forKeys(tombstones);
        for (int i = 0; i < tombstones; i++) {
            tombstoneBloom.add(tombstoneHashes[i]);
        }
        int filterLength = bloom.encodedSize() + tombstoneBloom.encodedSize() + 4;
        ensure(filterLength);
        long filterOffset = written + buffer.position();
        int start = buffer.position();
        bloom.encode(buffer);
        tombstoneBloom.encode(buffer);
        putCrc(buffer, start);
        index.putInt(blocks);
        int indexLength = index.position() + 4;
        ensure(indexLength);
        long indexOffset = written + buffer.position();
        start = buffer.position();
        buffer.put(index.flip());
        putCrc(buffer, start);
        ensure(TableFormat.FOOTER_BYTES);
        start = buffer.position();
        buffer.putLong(indexOffset).putInt(indexLength);
        buffer.putLong(filterOffset).putInt(filterLength);
        buffer.putLong(entries).putLong(maxSeq).putInt(maxValue);
        buffer.putLong(newKeys).putLong(removedKeys);
        buffer.putInt(TableFormat.VERSION).putLong(TableFormat.MAGIC);
        putCrc(buffer, start);
        drain();
        file.force();
        return new TableMeta(
                number,
                written,
                smallest,
                largest,
                entries,
                maxSeq,
                maxValue,
                newKeys,
                removedKeys);
    }

    private static void putCrc(ByteBuffer out, int from) {
        CRC32C crc = new CRC32C();
        crc.update(out.duplicate().position(from).limit(out.position()));
        out.putInt((int) crc.getValue());
    }
}
