package dbf0.kv.storage.btree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Read third: the slotted layout that lets a fixed-size page hold cells of any length in key order.
 *
 * <pre>
 *   | header | slot 0 | slot 1 | ... | slot n-1 |  free  | cell | cell | ... | cell |
 *   0        32                      slotsEnd   cellsStart                  pageSize
 * </pre>
 *
 * Each slot is a u16 offset of its cell. The slots are in key order; the cells are wherever they
 * were written, growing down from the page's end. Why the indirection: inserting a key in the
 * middle moves two bytes per later slot, not the later cells themselves; and a cell never moves
 * while the page is in use, except when {@link #compact} squeezes out the holes that removed cells
 * left (counted in the header's {@code fragmented}), which it does only when an insert needs the
 * room.
 *
 * <p>Every method works on a page's bytes in memory; the caller holds the page's latch.
 */
final class SlottedPage {

    private SlottedPage() {}

    static int slotsEnd(byte[] page) {
        return Page.HEADER_BYTES + Cells.SLOT * Page.count(page);
    }

    /** Where cell {@code i} starts. */
    static int offset(byte[] page, int i) {
        return Page.getShort(page, Page.HEADER_BYTES + Cells.SLOT * i);
    }

    private static void offset(byte[] page, int i, int at) {
        Page.putShort(page, Page.HEADER_BYTES + Cells.SLOT * i, at);
    }

    static int cellLength(byte[] page, int i) {
        return Cells.length(page, Page.type(page), offset(page, i));
    }

    /** Bytes an insert could use, the holes included: it may need a {@link #compact} first. */
    static int freeSpace(byte[] page) {
        return Page.cellsStart(page) - slotsEnd(page) + Page.fragmented(page);
    }

    /** Bytes the cells and their slots take. */
    static int usedSpace(byte[] page) {
        return page.length - Page.HEADER_BYTES - freeSpace(page);
    }

    /** Compares cell {@code i}'s key with {@code key}, both as unsigned bytes. */
    static int compare(byte[] page, int i, byte[] key) {
        int at = offset(page, i);
        int from = Cells.keyStart(page, Page.type(page), at);
        return Arrays.compareUnsigned(
                page, from, from + Cells.keyLength(page, at), key, 0, key.length);
    }

    /**
     * Binary search over the slots: the index of {@code key}'s cell, or {@code -(i + 1)} where i is
     * where it would go.
     */
    static int search(byte[] page, byte[] key) {
        int lo = 0;
        int hi = Page.count(page) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(page, mid, key);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /** Cell {@code i}'s key. */
    static byte[] key(byte[] page, int i) {
        return Cells.key(page, Page.type(page), offset(page, i));
    }

    /** A copy of cell {@code i}'s bytes. */
    static byte[] cell(byte[] page, int i) {
        int at = offset(page, i);
        return Arrays.copyOfRange(page, at, at + cellLength(page, i));
    }

    /** True if a cell of {@code length} bytes and its slot fit, compacting if need be. */
    static boolean fits(byte[] page, int length) {
        return freeSpace(page) >= length + Cells.SLOT;
    }

    /**
     * Puts {@code cell} at slot {@code i}, moving later slots up one.
     *
     * @return false, changing nothing, if there is no room
     */
    static boolean insert(byte[] page, int i, byte[] cell) {
        if (!fits(page, cell.length)) {
            return false;
        }
        if (Page.cellsStart(page) - slotsEnd(page) < cell.length + Cells.SLOT) {
            compact(page);
        }
        int n = Page.count(page);
        int at = Page.cellsStart(page) - cell.length;
        System.arraycopy(cell, 0, page, at, cell.length);
        Page.cellsStart(page, at);
        int slot = Page.HEADER_BYTES + Cells.SLOT * i;
        System.arraycopy(page, slot, page, slot + Cells.SLOT, Cells.SLOT * (n - i));
        offset(page, i, at);
        Page.count(page, n + 1);
        return true;
    }

    /** Removes slot {@code i}; its cell's bytes become a hole, or free space if lowest. */
    static void remove(byte[] page, int i) {
        int n = Page.count(page);
        int at = offset(page, i);
        int length = cellLength(page, i);
        if (at == Page.cellsStart(page)) {
            Page.cellsStart(page, at + length);
        } else {
            Page.fragmented(page, Page.fragmented(page) + length);
        }
        int slot = Page.HEADER_BYTES + Cells.SLOT * i;
        System.arraycopy(page, slot + Cells.SLOT, page, slot, Cells.SLOT * (n - i - 1));
        Page.count(page, n - 1);
        if (n == 1) {
            Page.cellsStart(page, Page.cellsEnd(page)); // the last cell went: no holes left
            Page.fragmented(page, 0);
        }
    }

    /** Rewrites the cells back to back at the page's end, in slot order: no holes. */
    static void compact(byte[] page) {
        List<byte[]> cells = cells(page, 0, Page.count(page));
        setCells(page, cells);
    }

    /** Copies of cells {@code from} (inclusive) to {@code to} (exclusive). */
    static List<byte[]> cells(byte[] page, int from, int to) {
        List<byte[]> cells = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            cells.add(cell(page, i));
        }
        return cells;
    }

    /** Replaces every cell with {@code cells}, in order; they must fit. */
    static void setCells(byte[] page, List<byte[]> cells) {
        int at = Page.cellsEnd(page);
        int n = cells.size();
        Page.count(page, 0);
        for (int i = 0; i < n; i++) {
            byte[] c = cells.get(i);
            at -= c.length;
            if (at < Page.HEADER_BYTES + Cells.SLOT * n) {
                throw new IllegalStateException("cells do not fit the page");
            }
            System.arraycopy(c, 0, page, at, c.length);
            offset(page, i, at);
        }
        Arrays.fill(page, Page.HEADER_BYTES + Cells.SLOT * n, at, (byte) 0);
        Page.count(page, n);
        Page.cellsStart(page, at);
        Page.fragmented(page, 0);
    }
}
