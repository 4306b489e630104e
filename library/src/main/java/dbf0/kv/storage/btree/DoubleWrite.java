package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The double-write file: how a checkpoint changes many pages of the tree's file at once, and how a
 * page torn by a power cut is repaired.
 *
 * <p>A disk writes a 4 KiB page in several sectors, and a power cut can leave some new and some
 * old: a torn page, which its checksum then rejects, and the tree has lost whatever the page held.
 * So a checkpoint first writes every page it will change, whole, into this file, and forces it;
 * only then does it write them in place. A cut during the in-place writes leaves torn pages in the
 * tree's file, but whole copies here: recovery writes them again. A cut while this file is written
 * leaves it torn, but then nothing in place has changed yet: recovery throws it away. (InnoDB's
 * doublewrite buffer works the same way; PostgreSQL logs a full page image after each checkpoint
 * instead.)
 *
 * <pre>
 *   u64 magic     "dbf0DWB1"
 *   u32 pageSize
 *   u32 count     pages that follow
 *   u64 lsn       the checkpoint's
 *   u32 0
 *   u32 crc       CRC32C of the 28 bytes before it and the page numbers after it
 *   count x u32   the page numbers, in the order of the pages
 *   count x page  the pages, sealed, each with its own checksum
 * </pre>
 */
final class DoubleWrite {

    static final String NAME = "btree.dwb";
    static final long MAGIC = 0x6462663044574231L; // "dbf0DWB1"
    static final int HEADER_BYTES = 32;

    private DoubleWrite() {}

    /** The header and page numbers, the part of the file before the pages. */
    static ByteBuffer header(int pageSize, long lsn, List<Integer> numbers) {
        int n = numbers.size();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + 4 * n);
        out.putLong(MAGIC).putInt(pageSize).putInt(n).putLong(lsn).putInt(0).putInt(0);
        for (int number : numbers) {
            out.putInt(number);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, 28);
        crc.update(out.array(), HEADER_BYTES, 4 * n);
        out.putInt(28, (int) crc.getValue());
        return out.flip();
    }

    /**
     * Writes the pages (sealed, in the order of their numbers) to the double-write file and forces
     * it: one write for the header and one per page, so that no buffer holds them all twice.
     */
    static void write(
            WalFile file, int pageSize, long lsn, List<Integer> numbers, List<byte[]> pages)
            throws IOException {
        file.truncate(0);
        ByteBuffer head = header(pageSize, lsn, numbers);
        long at = head.remaining();
        file.write(head, 0);
        for (byte[] page : pages) {
            file.write(ByteBuffer.wrap(page), at);
            at += page.length;
        }
        file.force();
    }

    /** Empties the file, durably: the checkpoint is in place. */
    static void clear(WalFile file) throws IOException {
        file.truncate(0);
        file.force();
    }

    /**
     * Before the tree's file is opened: if the double-write file holds a whole checkpoint, writes
     * its pages in place again and forces them; then empties it. Reads one page at a time.
     *
     * @return the pages written again (0 if the file was empty or torn)
     */
    static int recover(WalDirectory dir) throws IOException {
        if (!dir.exists(NAME)) {
            return 0;
        }
        try (WalFile file = dir.open(NAME)) {
            if (file.size() == 0) {
                return 0;
            }
            List<Integer> numbers = whole(file);
            if (numbers != null) {
                int pageSize = read(file, 8, 4).getInt();
                try (WalFile tree = dir.open(TreeFile.NAME)) {
                    long at = HEADER_BYTES + 4L * numbers.size();
                    for (int number : numbers) {
                        tree.write(read(file, at, pageSize), (long) number * pageSize);
                        at += pageSize;
                    }
                    tree.force();
                }
            }
            clear(file);
            return numbers == null ? 0 : numbers.size();
        }
    }

    /** The page numbers if {@code file} holds a whole checkpoint, else null (torn or empty). */
    static List<Integer> whole(WalFile file) throws IOException {
        long size = file.size();
        if (size < HEADER_BYTES) {
            return null;
        }
        ByteBuffer head = read(file, 0, HEADER_BYTES);
        int pageSize = head.getInt(8);
        int n = head.getInt(12);
        if (head.getLong(0) != MAGIC || n < 0 || n > (size - HEADER_BYTES) / 4) {
            return null;
        }
        try {
            Page.checkSize(pageSize);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (HEADER_BYTES + 4L * n + (long) n * pageSize != size) {
            return null;
        }
        ByteBuffer list = read(file, HEADER_BYTES, 4 * n);
        CRC32C crc = new CRC32C();
        crc.update(head.array(), 0, 28);
        crc.update(list.array(), 0, 4 * n);
        if (head.getInt(28) != (int) crc.getValue()) {
            return null;
        }
        Integer[] numbers = new Integer[n];
        long at = HEADER_BYTES + 4L * n;
        for (int i = 0; i < n; i++) {
            numbers[i] = list.getInt(4 * i);
            if (Page.problem(read(file, at, pageSize).array(), numbers[i]) != null) {
                return null;
            }
            at += pageSize;
        }
        return List.of(numbers);
    }

    private static ByteBuffer read(WalFile file, long at, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining()) {
            if (file.read(buf, at + buf.position()) < 0) {
                throw new java.io.EOFException("the double-write file ends early");
            }
        }
        return buf.flip();
    }
}
