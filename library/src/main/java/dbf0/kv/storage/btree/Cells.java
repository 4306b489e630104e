package dbf0.kv.storage.btree;

import java.util.Arrays;

/**
 * Read second: what one entry (a cell) of a leaf or an inner page holds, byte by byte.
 *
 * <pre>
 *   leaf cell:   u16 keyLength, u8 kind, u32 valueLength, key, then
 *                  kind 0 (inline):   the value's bytes
 *                  kind 1 (overflow): u32 the first overflow page of the value
 *   inner cell:  u16 keyLength, u32 child, key
 * </pre>
 *
 * An inner page with cells (k1,c1) .. (kn,cn) and leftmost child c0 (the header's link) sends a key
 * below k1 to c0 and a key from ki up to the next key to ci: each ki is the smallest key its child
 * may hold (a separator). A value too large to sit in the leaf goes to a chain of overflow pages
 * ({@link Overflow}) and the cell keeps its length and the chain's first page.
 *
 * <p>Why a bound on every cell ({@link #maxCell}, a quarter of the page's cell space): a full page
 * that gets one more cell must split into two pages that each fit, and an inner page must hold at
 * least two separators to branch at all. A quarter is what makes both true whatever the cells.
 */
final class Cells {

    static final byte INLINE = 0;
    static final byte OUTSIDE = 1;

    /** Key length, kind, value length. */
    static final int LEAF_FIXED = 7;

    /** Key length, child. */
    static final int INNER_FIXED = 6;

    /** A slot in the page's slot array. */
    static final int SLOT = 2;

    private Cells() {}

    /** The largest cell (slot included) a page of {@code pageSize} bytes takes. */
    static int maxCell(int pageSize) {
        return (pageSize - Page.HEADER_BYTES) / 4;
    }

    /** The longest key: one in a leaf cell whose value went to overflow pages, slot included. */
    static int maxKey(int pageSize) {
        return maxCell(pageSize) - SLOT - LEAF_FIXED - 4;
    }

    /** True if a value of {@code valueLength} bytes stays in the leaf beside a key. */
    static boolean fitsInline(int pageSize, int keyLength, long valueLength) {
        return SLOT + LEAF_FIXED + keyLength + valueLength <= maxCell(pageSize);
    }

    /** A leaf cell with the value inline. */
    static byte[] leafInline(byte[] key, byte[] value) {
        byte[] c = new byte[LEAF_FIXED + key.length + value.length];
        Page.putShort(c, 0, key.length);
        c[2] = INLINE;
        Page.putInt(c, 3, value.length);
        System.arraycopy(key, 0, c, LEAF_FIXED, key.length);
        System.arraycopy(value, 0, c, LEAF_FIXED + key.length, value.length);
        return c;
    }

    /**
     * A leaf cell whose value of {@code valueLength} bytes starts at overflow page {@code first}.
     */
    static byte[] leafOutside(byte[] key, int valueLength, int first) {
        byte[] c = new byte[LEAF_FIXED + key.length + 4];
        Page.putShort(c, 0, key.length);
        c[2] = OUTSIDE;
        Page.putInt(c, 3, valueLength);
        System.arraycopy(key, 0, c, LEAF_FIXED, key.length);
        Page.putInt(c, LEAF_FIXED + key.length, first);
        return c;
    }

    /** An inner cell: keys from {@code key} on go to {@code child}. */
    static byte[] inner(byte[] key, int child) {
        byte[] c = new byte[INNER_FIXED + key.length];
        Page.putShort(c, 0, key.length);
        Page.putInt(c, 2, child);
        System.arraycopy(key, 0, c, INNER_FIXED, key.length);
        return c;
    }

    /** The length of the cell at {@code at} in a page of {@code type}. */
    static int length(byte[] page, byte type, int at) {
        int key = Page.getShort(page, at);
        if (type == Page.INNER) {
            return INNER_FIXED + key;
        }
        int tail = page[at + 2] == INLINE ? Page.getInt(page, at + 3) : 4;
        return LEAF_FIXED + key + tail;
    }

    static int keyLength(byte[] page, int at) {
        return Page.getShort(page, at);
    }

    /** Where the key of the cell at {@code at} starts. */
    static int keyStart(byte[] page, byte type, int at) {
        return at + (type == Page.INNER ? INNER_FIXED : LEAF_FIXED);
    }

    static byte[] key(byte[] page, byte type, int at) {
        int from = keyStart(page, type, at);
        return Arrays.copyOfRange(page, from, from + keyLength(page, at));
    }

    /** The child of the inner cell at {@code at}. */
    static int child(byte[] page, int at) {
        return Page.getInt(page, at + 2);
    }

    /** True if the leaf cell at {@code at} keeps its value in overflow pages. */
    static boolean outside(byte[] page, int at) {
        return page[at + 2] == OUTSIDE;
    }

    /** The value's length in bytes, inline or not. */
    static int valueLength(byte[] page, int at) {
        return Page.getInt(page, at + 3);
    }

    /** The inline value's bytes. */
    static byte[] inlineValue(byte[] page, int at) {
        int from = at + LEAF_FIXED + keyLength(page, at);
        return Arrays.copyOfRange(page, from, from + valueLength(page, at));
    }

    /** The first overflow page of an outside value. */
    static int firstOverflow(byte[] page, int at) {
        return Page.getInt(page, at + LEAF_FIXED + keyLength(page, at));
    }
}
