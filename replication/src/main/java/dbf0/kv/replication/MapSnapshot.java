package dbf0.kv.replication;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.Store;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * A store in memory written out whole at one log index: what a member keeps so that its log can be
 * purged behind it, and what the leader sends a member that lags too far behind or starts empty.
 * The bytes, in docs/formats.md:
 *
 * <pre>
 * file    = magic "DBF0SNAP"  version:u8 (1)  pair*  end
 * pair    = keyLength:u32 key  valueLength:u32 value
 * end     = 0xFFFFFFFF  pairs:u64  crc32c:u32
 * </pre>
 *
 * Big-endian. The count comes last, so the file is written in one walk of a live store; the CRC32C
 * covers every byte before it. Written under a temporary name, forced, then renamed: a crash leaves
 * the old snapshot or the whole new one.
 */
final class MapSnapshot {

    static final byte[] MAGIC = {'D', 'B', 'F', '0', 'S', 'N', 'A', 'P'};
    static final int VERSION = 1;
    static final int END = 0xFFFFFFFF;

    /** A key or value longer than this is not believed: the protocols' own limits are smaller. */
    static final int MAX_LENGTH = 512 << 20;

    private MapSnapshot() {}

    /** Writes every pair of {@code store} to {@code file}; returns how many. */
    static long write(Store store, Path file) throws IOException {
        Path part = file.resolveSibling(file.getFileName() + ".part");
        long pairs = 0;
        CRC32C crc = new CRC32C();
        try (OutputStream raw = Files.newOutputStream(part);
                DataOutputStream out =
                        new DataOutputStream(
                                new BufferedOutputStream(
                                        new CheckedOutputStream(raw, crc), 1 << 16))) {
            out.write(MAGIC);
            out.writeByte(VERSION);
            Writer writer = new Writer(out);
            store.forEach(writer::pair);
            writer.rethrow();
            out.writeInt(END);
            out.writeLong(writer.pairs);
            out.flush();
            pairs = writer.pairs;
            new DataOutputStream(raw).writeInt((int) crc.getValue());
        }
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return pairs;
    }

    /** Writes pairs as a store's walk hands them over, keeping the first failure. */
    private static final class Writer {
        final DataOutputStream out;
        long pairs;
        IOException failed;

        Writer(DataOutputStream out) {
            this.out = out;
        }

        void pair(ByteArrayWrapper key, ByteArrayWrapper value) {
            if (failed != null) {
                return;
            }
            try {
                out.writeInt(key.length());
                out.write(key.getArray());
                out.writeInt(value.length());
                out.write(value.getArray());
                pairs++;
            } catch (IOException e) {
                failed = e;
            }
        }

        void rethrow() throws IOException {
            if (failed != null) {
                throw failed;
            }
        }
    }

    /**
     * Clears {@code store} and puts every pair of {@code file} into it; returns how many.
     *
     * @throws IOException naming the file, for one that is not a whole snapshot: bad magic or
     *     version, a length past the end, a wrong count or CRC
     */
    static long read(Path file, Store store) throws IOException {
        CRC32C crc = new CRC32C();
        long left = Files.size(file);
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
                DataInputStream in = new DataInputStream(new CheckedInputStream(raw, crc))) {
            if (!Arrays.equals(in.readNBytes(MAGIC.length), MAGIC)
                    || in.readUnsignedByte() != VERSION) {
                throw new IOException(file + ": not a version 1 dbf0 snapshot");
            }
            left -= MAGIC.length + 1;
            store.clear();
            long pairs = 0;
            int length;
            while ((length = in.readInt()) != END) {
                ByteArrayWrapper key = bytes(in, length, file, left);
                left -= 4 + length;
                int valueLength = in.readInt();
                ByteArrayWrapper value = bytes(in, valueLength, file, left);
                left -= 4 + valueLength;
                store.put(key, value);
                pairs++;
            }
            long counted = in.readLong();
            int expected = (int) crc.getValue();
            int stored = new DataInputStream(raw).readInt();
            if (counted != pairs || stored != expected || left != 4 + 8 + 4) {
                throw new IOException(file + ": its count or CRC32C does not match: damaged");
            }
            return pairs;
        } catch (EOFException e) {
            throw new IOException(file + ": cut short: a damaged snapshot", e);
        }
    }

    private static ByteArrayWrapper bytes(DataInputStream in, int length, Path file, long left)
            throws IOException {
        if (length < 0 || length > MAX_LENGTH || length > left - 4) {
            throw new IOException(file + ": a length of " + length + " past the file's end");
        }
        return new ByteArrayWrapper(in.readNBytes(length));
    }
}
