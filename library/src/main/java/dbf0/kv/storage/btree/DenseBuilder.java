package dbf0.kv.storage.btree;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a tree bottom-up from keys given in order, straight into a new file: what a {@link Vacuum}
 * writes. Each leaf is filled until the next cell does not fit, then written with a link to the
 * next; the first key of every leaf but the first goes up as a separator into the level above,
 * which fills and goes up the same way. A page is written once, whole, when the next one starts, so
 * the builder holds one page per level (a bulk load); no page is read back.
 *
 * <p>Pages are numbered in the order they start, from 1 (page 0 is the meta, written by the caller
 * last). Every leaf but the last and every inner page but the rightmost of its level is full: a
 * vacuumed tree is as small as its cells allow, and the first inserts into a full leaf split it.
 */
final class DenseBuilder {

    /** A page being filled: its bytes and its number. */
    private record Open(byte[] data, int number) {}

    private final PageFile out;
    private final int pageSize;
    private final long lsn;

    /** The page being filled at each level, the leaves' at 0. */
    private final List<Open> levels = new ArrayList<>();

    private int nextPage = 1;
    private long keys;

    DenseBuilder(PageFile out, long lsn) {
        this.out = out;
        this.pageSize = out.pageSize();
        this.lsn = lsn;
    }

    /** Keys added. */
    long keys() {
        return keys;
    }

    /** Pages used, the meta page included: the new file's page count. */
    int pageCount() {
        return nextPage;
    }

    private Open start(byte type, int level) {
        byte[] page = new byte[pageSize];
        Page.format(page, type, nextPage, lsn);
        Page.level(page, level);
        return new Open(page, nextPage++);
    }

    /**
     * Adds the leaf cell of {@code key}: its value inline, or in a chain {@link #copyChain} has
     * already written to the new file. Keys come strictly ascending.
     */
    void add(byte[] key, byte[] cell) throws IOException {
        if (levels.isEmpty()) {
            levels.add(start(Page.LEAF, 0));
        }
        Open leaf = levels.get(0);
        if (!SlottedPage.insert(leaf.data(), Page.count(leaf.data()), cell)) {
            Open next = start(Page.LEAF, 0);
            Page.link(leaf.data(), next.number());
            out.write(leaf.number(), leaf.data());
            levels.set(0, next);
            separator(1, key, next.number(), leaf.number());
            if (!SlottedPage.insert(next.data(), 0, cell)) {
                throw new IllegalStateException("a cell does not fit an empty leaf");
            }
        }
        keys++;
    }

    /**
     * Puts the separator of a new page {@code child} at {@code level}; {@code left} is the page
     * before it, the leftmost child of a level's first page.
     */
    private void separator(int level, byte[] key, int child, int left) throws IOException {
        byte[] cell = Cells.inner(key, child);
        if (levels.size() == level) {
            Open first = start(Page.INNER, level);
            Page.link(first.data(), left);
            levels.add(first);
        }
        Open page = levels.get(level);
        if (SlottedPage.insert(page.data(), Page.count(page.data()), cell)) {
            return;
        }
        // Full: the child starts the next page at this level as its leftmost child, and the
        // separator that would have routed to it routes to that page one level up instead.
        Open next = start(Page.INNER, level);
        Page.link(next.data(), child);
        out.write(page.number(), page.data());
        levels.set(level, next);
        separator(level + 1, key, next.number(), page.number());
    }

    /**
     * Copies the overflow chain of a value of {@code length} bytes from {@code pool} into new
     * pages, one page at a time; returns the new chain's first page.
     */
    int copyChain(BufferPool pool, int first, int length) throws IOException {
        int start = nextPage;
        int page = first;
        int copied = 0;
        while (copied < length) {
            if (page == 0) {
                throw new CorruptPageException(
                        pool.file().name() + ": an overflow chain ends short of its value");
            }
            byte[] copy = new byte[pageSize];
            Frame f = pool.fetch(page);
            f.readLatch();
            try {
                if (Page.type(f.data) != Page.OVERFLOW) {
                    throw new CorruptPageException(
                            pool.file().describe(page) + " should be an overflow page");
                }
                System.arraycopy(f.data, 0, copy, 0, pageSize);
                page = Page.link(f.data);
            } finally {
                f.readUnlatch();
                pool.unpin(f);
            }
            copied += Page.count(copy);
            int number = nextPage++;
            Page.lsn(copy, lsn);
            Page.putInt(copy, Page.NUMBER, number);
            Page.link(copy, copied < length ? number + 1 : 0);
            out.write(number, copy);
        }
        return start;
    }

    /**
     * Writes the pages still being filled (an empty leaf if no key came) and returns the root and
     * its level.
     */
    int[] finish() throws IOException {
        if (levels.isEmpty()) {
            levels.add(start(Page.LEAF, 0));
        }
        for (Open page : levels) {
            out.write(page.number(), page.data());
        }
        return new int[] {levels.get(levels.size() - 1).number(), levels.size() - 1};
    }
}
