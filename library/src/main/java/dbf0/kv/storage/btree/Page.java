package dbf0.kv.storage.btree;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Read this first: the fixed-size page, the unit in which the B+tree reads, caches and writes its
 * file, and the 32-byte header every page starts with. All integers are big-endian; docs/formats.md
 * has the bytes ("The B+tree's file").
 *
 * <pre>
 *   0  u32 crc        CRC32C of bytes 4 .. pageSize-1 (everything after this field)
 *   4  u8  type       1 meta, 2 leaf, 3 inner, 4 overflow, 5 free
 *   5  u8  level      0 for a leaf, a child's level + 1 for an inner page; 0 otherwise
 *   6  u16 count      cells in a leaf or inner page; bytes used in an overflow page
 *   8  u64 lsn        the log sequence number of the page's last change
 *  16  u32 page       the page's own number
 *  20  u32 link       leaf: next leaf; inner: leftmost child; overflow, free: next in chain; 0 none
 *  24  u16 cellsStart the lowest byte of the cell area (cells grow down from the page's end)
 *  26  u16 fragmented bytes of removed cells still inside the cell area
 *  28  u32 0
 * </pre>
 *
 * Why a checksum in every page: a disk can return the wrong bytes, or half of a write the power cut
 * short (a torn page). The checksum turns both into an error that names the page instead of a tree
 * that silently points into garbage. Why the page's own number: a write that landed at the wrong
 * offset has a good checksum but the wrong number. Why the LSN: it says how recent a page is; the
 * checkpoint uses it to tell a page that changed again while it was being written (see {@link
 * Checkpoint}). Page 0 is always the meta page, so 0 can mean "no page" in a link.
 */
final class Page {

    static final int HEADER_BYTES = 32;

    static final byte META = 1;
    static final byte LEAF = 2;
    static final byte INNER = 3;
    static final byte OVERFLOW = 4;
    static final byte FREE = 5;

    /** The default page size: the size of a memory page and of most file systems' blocks. */
    static final int DEFAULT_SIZE = 4096;

    /** The smallest page size: four cells of a short key must fit. */
    static final int MIN_SIZE = 1024;

    /**
     * The largest page size: offsets inside a page are u16, and the empty cell area starts at the
     * page's end, so the page size itself must fit in one (65,535 would; a power of two 32,768).
     */
    static final int MAX_SIZE = 32768;

    static final int CRC = 0;
    static final int TYPE = 4;
    static final int LEVEL = 5;
    static final int COUNT = 6;
    static final int LSN = 8;
    static final int NUMBER = 16;
    static final int LINK = 20;
    static final int CELLS_START = 24;
    static final int FRAGMENTED = 26;

    private Page() {}

    /** Checks a page size from the command line or a file: a power of two in range. */
    static void checkSize(int size) {
        if (size < MIN_SIZE || size > MAX_SIZE || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException(
                    "page size must be a power of two from "
                            + MIN_SIZE
                            + " to "
                            + MAX_SIZE
                            + " bytes, got "
                            + size);
        }
    }

    /** Zeroes {@code page} and writes a fresh header: no cells, no link, the cell area empty. */
    static void format(byte[] page, byte type, int number, long lsn) {
        java.util.Arrays.fill(page, (byte) 0);
        page[TYPE] = type;
        putInt(page, NUMBER, number);
        putLong(page, LSN, lsn);
        putShort(page, CELLS_START, cellsEnd(page));
    }

    /** The cell area's end: the page's. */
    static int cellsEnd(byte[] page) {
        return page.length;
    }

    static byte type(byte[] page) {
        return page[TYPE];
    }

    static int level(byte[] page) {
        return page[LEVEL] & 0xff;
    }

    static void level(byte[] page, int level) {
        page[LEVEL] = (byte) level;
    }

    static int count(byte[] page) {
        return getShort(page, COUNT);
    }

    static void count(byte[] page, int n) {
        putShort(page, COUNT, n);
    }

    static long lsn(byte[] page) {
        return getLong(page, LSN);
    }

    static void lsn(byte[] page, long lsn) {
        putLong(page, LSN, lsn);
    }

    static int number(byte[] page) {
        return getInt(page, NUMBER);
    }

    static int link(byte[] page) {
        return getInt(page, LINK);
    }

    static void link(byte[] page, int next) {
        putInt(page, LINK, next);
    }

    /** The lowest byte of the cell area; the page's size when there are no cells. */
    static int cellsStart(byte[] page) {
        return getShort(page, CELLS_START);
    }

    static void cellsStart(byte[] page, int at) {
        putShort(page, CELLS_START, at);
    }

    static int fragmented(byte[] page) {
        return getShort(page, FRAGMENTED);
    }

    static void fragmented(byte[] page, int bytes) {
        putShort(page, FRAGMENTED, bytes);
    }

    /** The checksum a page's bytes should carry. */
    static int checksum(byte[] page) {
        CRC32C crc = new CRC32C();
        crc.update(page, 4, page.length - 4);
        return (int) crc.getValue();
    }

    /** Stamps the checksum into the page, just before it is written. */
    static void seal(byte[] page) {
        putInt(page, CRC, checksum(page));
    }

    /**
     * Why the bytes read for page {@code number} are not a good page, or null if they are: the
     * checksum, the type, the page's own number, the cell area's bounds.
     */
    static String problem(byte[] page, int number) {
        int stored = getInt(page, CRC);
        int actual = checksum(page);
        if (stored != actual) {
            return String.format("checksum %08x does not match the page's %08x", stored, actual);
        }
        byte type = type(page);
        if (type < META || type > FREE) {
            return "unknown page type " + type;
        }
        if (number(page) != number) {
            return "the page says it is page " + Integer.toUnsignedLong(number(page));
        }
        if (type == LEAF || type == INNER) {
            int slotsEnd = HEADER_BYTES + 2 * count(page);
            if (slotsEnd > cellsStart(page) || cellsStart(page) > page.length) {
                return "the slot array runs into the cell area";
            }
        }
        return null;
    }

    static int getShort(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }

    static void putShort(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    static int getInt(byte[] b, int at) {
        return ByteBuffer.wrap(b).getInt(at);
    }

    static void putInt(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).putInt(at, v);
    }

    static long getLong(byte[] b, int at) {
        return ByteBuffer.wrap(b).getLong(at);
    }

    static void putLong(byte[] b, int at, long v) {
        ByteBuffer.wrap(b).putLong(at, v);
    }
}
