package dbf0.kv.storage.btree;

/**
 * Values too large for a leaf: a chain of overflow pages, each holding up to {@code pageSize - 32}
 * bytes of the value after its header (whose count is the bytes used and whose link is the next
 * page, 0 at the end). The leaf cell keeps the value's length and the first page.
 *
 * <p>Why not just larger pages: a page size is the unit of every read and write, so it is chosen
 * for the common case; a rare 100 KiB value should cost its own pages, not make every leaf read 128
 * KiB. The chain is written whole before the leaf points to it, and freed only after the leaf no
 * longer does; a reader holding the leaf's latch therefore always sees a whole chain.
 */
final class Overflow {

    private Overflow() {}

    static int perPage(int pageSize) {
        return pageSize - Page.HEADER_BYTES;
    }

    /** Writes {@code value} to new pages; returns the first. */
    static int write(Allocator alloc, BufferPool pool, byte[] value, long lsn) {
        int per = perPage(pool.pageSize());
        int pages = Math.max(1, (value.length + per - 1) / per);
        int next = 0;
        for (int i = pages - 1; i >= 0; i--) { // back to front: each page knows its successor
            Frame f = alloc.allocate(Page.OVERFLOW, lsn);
            try {
                int from = i * per;
                int n = Math.min(per, value.length - from);
                System.arraycopy(value, from, f.data, Page.HEADER_BYTES, n);
                Page.count(f.data, n);
                Page.link(f.data, next);
                next = f.page;
            } finally {
                f.writeUnlatch();
                pool.unpin(f);
            }
        }
        return next;
    }

    /** Reads a value of {@code length} bytes starting at page {@code first}. */
    static byte[] read(BufferPool pool, int first, int length) {
        byte[] value = new byte[length];
        int at = 0;
        int page = first;
        while (at < length) {
            if (page == 0) {
                throw new CorruptPageException(
                        pool.file().name()
                                + ": an overflow chain ends "
                                + (length - at)
                                + " bytes short of its value");
            }
            Frame f = pool.fetch(page);
            f.readLatch();
            try {
                if (Page.type(f.data) != Page.OVERFLOW) {
                    throw new CorruptPageException(
                            pool.file().describe(page) + " should be an overflow page");
                }
                int n = Math.min(Page.count(f.data), length - at);
                System.arraycopy(f.data, Page.HEADER_BYTES, value, at, n);
                at += n;
                page = Page.link(f.data);
            } finally {
                f.readUnlatch();
                pool.unpin(f);
            }
        }
        return value;
    }

    /** Frees the chain starting at {@code first}. */
    static void free(Allocator alloc, BufferPool pool, int first, long lsn) {
        int page = first;
        while (page != 0) {
            Frame f = pool.fetch(page);
            int next;
            f.readLatch();
            try {
                next = Page.type(f.data) == Page.OVERFLOW ? Page.link(f.data) : 0;
            } finally {
                f.readUnlatch();
                pool.unpin(f);
            }
            alloc.free(page, lsn);
            page = next;
        }
    }
}
