package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * An open table: its footer, index and bloom filter in memory, its data blocks on disk (or in the
 * block cache). Immutable once open, so any number of readers share it.
 *
 * <p>Memory: the index holds each block's first and last key and 16 bytes more; the filter 10 bits
 * per key. With 16-byte keys and 1 KiB values that is about 13 MiB of index and 1.2 MiB of filter
 * per GiB of data: what grows with the data, not with the workload.
 */
final class Table {

    private final WalFile file;
    private final String name;
    private final TableMeta meta;
    private final Bloom bloom;

    /** A filter of the keys of its tombstones alone (version 2), or null (version 1). */
    private final Bloom tombstones;

    private final byte[] index;
    private final int[] entryAt;

    private Table(
            WalFile file,
            String name,
            TableMeta meta,
            Bloom bloom,
            Bloom tombstones,
            byte[] index,
            int[] entryAt) {
        this.file = file;
        this.name = name;
        this.meta = meta;
        this.bloom = bloom;
        this.tombstones = tombstones;
        this.index = index;
        this.entryAt = entryAt;
    }

    /**
     * Reads a table's footer, filter and index.
     *
     * @param name the file's name for messages (the directory's description of it)
     * @throws CorruptTableException if any of them is damaged
     */
    static Table open(WalFile file, long number, String name) throws IOException {
        long size = file.size();
        if (size < TableFormat.FOOTER_V1_BYTES) {
            throw new CorruptTableException(name + ": " + size + " bytes, too short for a table");
        }
        // The last 16 bytes, version, magic and CRC, are where they are in every version.
        ByteBuffer tail = ByteBuffer.wrap(read(file, size - 16, 16, name));
        int version = tail.getInt();
        long magic = tail.getLong();
        int footerBytes = TableFormat.footerBytes(version);
        if (magic != TableFormat.MAGIC || footerBytes < 0 || size < footerBytes) {
            throw new CorruptTableException(
                    String.format(
                            "%s at offset %d: not a version 1 or %d table (magic %x, version %d)",
                            name, size - 16, TableFormat.VERSION, magic, version));
        }
        long footerAt = size - footerBytes;
        ByteBuffer footer = ByteBuffer.wrap(read(file, footerAt, footerBytes, name));
        checkCrc(footer.array(), name, footerAt, "footer");
        long indexOffset = footer.getLong();
        int indexLength = footer.getInt();
        long filterOffset = footer.getLong();
        int filterLength = footer.getInt();
        long entries = footer.getLong();
        long maxSeq = footer.getLong();
        int maxValue = footer.getInt();
        // A version-1 table knows no key counts: every entry counts as a new key.
        long newKeys = version == 1 ? entries : footer.getLong();
        long removedKeys = version == 1 ? 0 : footer.getLong();
        if (newKeys < 0 || removedKeys < 0 || newKeys > entries - removedKeys) {
            throw new CorruptTableException(
                    name + " at offset " + footerAt + ": key counts beyond its entries");
        }
        if (!inside(indexOffset, indexLength, footerAt)
                || !inside(filterOffset, filterLength, footerAt)
                || indexLength > TableFormat.MAX_INDEX_BYTES
                || filterLength > TableFormat.MAX_INDEX_BYTES) {
            throw new CorruptTableException(name + " at offset " + footerAt + ": bad footer");
        }
        byte[] filterBytes = read(file, filterOffset, filterLength, name);
        checkCrc(filterBytes, name, filterOffset, "filter block");
        String where = name + " at offset " + filterOffset;
        ByteBuffer filters = ByteBuffer.wrap(filterBytes, 0, filterLength - 4).slice();
        Bloom bloom;
        Bloom tombstones = null;
        if (version == 1) {
            bloom = Bloom.decode(filters, where);
        } else { // the filter of every key, then the filter of the tombstones' keys
            long first = filters.remaining() >= 8 ? 8 + 8L * filters.getInt(4) : -1;
            if (first < 8 || first > filters.remaining()) {
                throw new CorruptTableException(where + ": bad filter block");
            }
            bloom = Bloom.decode(filters.slice(0, (int) first), where);
            tombstones =
                    Bloom.decode(
                            filters.slice((int) first, filters.remaining() - (int) first),
                            where + ", its tombstones' filter");
        }
        byte[] index = read(file, indexOffset, indexLength, name);
        checkCrc(index, name, indexOffset, "index block");
        int[] entryAt = parseIndex(index, name + " at offset " + indexOffset);
        if (entryAt.length == 0) {
            throw new CorruptTableException(name + ": a table without blocks");
        }
        Table table = new Table(file, name, null, bloom, tombstones, index, entryAt);
        TableMeta meta =
                new TableMeta(
                        number,
                        size,
                        table.firstKey(0),
                        table.lastKey(entryAt.length - 1),
                        entries,
                        maxSeq,
                        maxValue,
                        newKeys,
                        removedKeys);
        return new Table(file, name, meta, bloom, tombstones, index, entryAt);
    }

    /** A table known by its metadata alone, without a file: for tests of the compaction plan. */
    static Table ofMeta(TableMeta meta) {
        return new Table(null, "table " + meta.number(), meta, null, null, null, null);
    }

    private static boolean inside(long offset, int length, long end) {
        return offset >= 0 && length >= 4 && offset + length <= end;
    }

    private static int[] parseIndex(byte[] index, String where) {
        ByteBuffer in = ByteBuffer.wrap(index, 0, index.length - 4);
        int count = in.getInt(index.length - 8);
        if (count < 0 || count > index.length / 20) {
            throw new CorruptTableException(where + ": bad block count " + count);
        }
        int[] at = new int[count];
        for (int i = 0; i < count; i++) {
            at[i] = in.position();
            in.position(in.position() + 12);
            for (int k = 0; k < 2; k++) {
                int length = in.getInt();
                if (length < 0 || length > in.remaining() - 4) {
                    throw new CorruptTableException(where + ": index entry " + i + " is bad");
                }
                in.position(in.position() + length);
            }
        }
        if (in.position() != index.length - 8) {
            throw new CorruptTableException(where + ": index entries do not fill the block");
        }
        return at;
    }

    private static byte[] read(WalFile file, long offset, int length, String name)
            throws IOException {
        ByteBuffer into = ByteBuffer.allocate(length);
        while (into.hasRemaining()) {
            int n = file.read(into, offset + into.position());
            if (n < 0) {
                throw new CorruptTableException(
                        name + " at offset " + offset + ": ends inside a " + length + "-byte read");
            }
        }
        return into.array();
    }

    private static void checkCrc(byte[] bytes, String name, long offset, String what) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes).getInt(bytes.length - 4)) {
            throw new CorruptTableException(
                    name + " at offset " + offset + ": " + what + " checksum mismatch");
        }
    }

    TableMeta meta() {
        return meta;
    }

    long number() {
        return meta.number();
    }

    String name() {
        return name;
    }

    int blocks() {
        return entryAt.length;
    }

    /** Bytes of index and filter held in memory. */
    long memoryBytes() {
        return index.length
                + 4L * entryAt.length
                + bloom.bytes()
                + (tombstones == null ? 0 : tombstones.bytes());
    }

    boolean mightContain(ByteArrayWrapper key) {
        return bloom.mightContain(key);
    }

    /** As {@link #mightContain(ByteArrayWrapper)}, with the key's {@link Bloom#hash}. */
    boolean mightContainHash(long hash) {
        return bloom.mightContain(hash);
    }

    /**
     * Whether the key may be a tombstone here, asked once {@link #mightContainHash} said it may be
     * here at all: false means a put (or, rarely, not here). A version-1 table has no filter of its
     * tombstones and says false.
     */
    boolean mayBeTombstone(long hash) {
        return tombstones != null && tombstones.mightContain(hash);
    }

    long blockOffset(int block) {
        return TableFormat.readLong(index, entryAt[block]);
    }

    private int blockLength(int block) {
        return TableFormat.readInt(index, entryAt[block] + 8);
    }

    private int compareLastKey(int block, ByteArrayWrapper key) {
        int at = entryAt[block] + 12;
        int firstLength = TableFormat.readInt(index, at);
        at += 4 + firstLength;
        int lastLength = TableFormat.readInt(index, at);
        byte[] k = key.getArray();
        return Arrays.compareUnsigned(index, at + 4, at + 4 + lastLength, k, 0, k.length);
    }

    ByteArrayWrapper firstKey(int block) {
        int at = entryAt[block] + 12;
        int length = TableFormat.readInt(index, at);
        return new ByteArrayWrapper(Arrays.copyOfRange(index, at + 4, at + 4 + length));
    }

    ByteArrayWrapper lastKey(int block) {
        int at = entryAt[block] + 12;
        at += 4 + TableFormat.readInt(index, at);
        int length = TableFormat.readInt(index, at);
        return new ByteArrayWrapper(Arrays.copyOfRange(index, at + 4, at + 4 + length));
    }

    /** The first block whose last key is at least {@code key}; {@link #blocks} if none. */
    int findBlock(ByteArrayWrapper key) {
        return LowerBound.of(entryAt.length, block -> compareLastKey(block, key) < 0);
    }

    /**
     * Reads block {@code block} from disk and checks it.
     *
     * @throws CorruptTableException naming this file and the block's offset
     */
    Block readBlock(int block) throws IOException {
        long offset = blockOffset(block);
        int length = blockLength(block);
        String where = name + " at offset " + offset;
        return Block.parse(read(file, offset, length, name), where);
    }

    /**
     * Reads blocks {@code from} to {@code to} (exclusive) with one read call, for a compaction's
     * sequential pass: one system call per many blocks instead of one per block.
     */
    Block[] readBlocks(int from, int to) throws IOException {
        long start = blockOffset(from);
        long end = blockOffset(to - 1) + blockLength(to - 1);
        byte[] bytes = read(file, start, (int) (end - start), name);
        Block[] blocks = new Block[to - from];
        for (int b = from; b < to; b++) {
            int at = (int) (blockOffset(b) - start);
            byte[] one = Arrays.copyOfRange(bytes, at, at + blockLength(b));
            blocks[b - from] = Block.parse(one, name + " at offset " + blockOffset(b));
        }
        return blocks;
    }

    void close() throws IOException {
        file.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
