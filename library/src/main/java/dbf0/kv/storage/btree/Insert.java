package dbf0.kv.storage.btree;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Read seventh: a put, and the splits it may cause.
 *
 * <p>First optimistically ({@link BTree}'s class comment): shared latches down, the leaf's alone,
 * and if the cell fits, done. Otherwise again from the root with write latches, keeping only the
 * pages a split could reach: going down, a page with room for one more separator lets go of every
 * page above it. At the leaf a full page splits into two halves by bytes; the right half's first
 * key goes up to the parent as the separator of the new page, and a full parent splits the same way
 * (its middle separator going up instead of staying), up to the root, which, when it splits, gets a
 * new root above it: the only way a B+tree grows taller, so every leaf stays at the same depth.
 */
final class Insert {

    private final BTree tree;

    Insert(BTree tree) {
        this.tree = tree;
    }

    /** Puts {@code value} under {@code key}; true if it replaced a value. */
    boolean put(byte[] key, byte[] value) {
        if (key.length > tree.maxKey()) {
            throw new IllegalArgumentException(
                    "a key of " + key.length + " bytes is over this tree's " + tree.maxKey());
        }
        tree.largestValue.accumulateAndGet(value.length, Math::max);
        long l = tree.lsn.incrementAndGet();
        BufferPool pool = tree.pool;
        byte[] cell =
                Cells.fitsInline(pool.pageSize(), key.length, value.length)
                        ? Cells.leafInline(key, value)
                        : Cells.leafOutside(
                                key, value.length, Overflow.write(tree.alloc, pool, value, l));
        int[] oldChain = {0};
        int outcome;
        tree.shape.readLock().lock();
        try {
            Frame f = tree.leaf(key, true, false);
            try {
                outcome = intoLeaf(f, key, cell, l, oldChain);
            } finally {
                tree.release(f, true);
            }
            if (outcome == NO_ROOM) {
                outcome = pessimistic(key, cell, l, oldChain);
            }
        } finally {
            tree.shape.readLock().unlock();
        }
        if (oldChain[0] != 0) {
            Overflow.free(tree.alloc, pool, oldChain[0], l);
        }
        if (outcome == ADDED) {
            tree.keys.incrementAndGet();
        }
        return outcome == REPLACED;
    }

    private static final int ADDED = 0;
    private static final int REPLACED = 1;
    private static final int NO_ROOM = 2;

    /** Puts the cell into the write-latched leaf if it fits; the replaced value's chain out. */
    private int intoLeaf(Frame f, byte[] key, byte[] cell, long l, int[] oldChain) {
        byte[] page = f.data;
        int i = SlottedPage.search(page, key);
        int outcome;
        if (i >= 0) {
            if (SlottedPage.freeSpace(page) + SlottedPage.cellLength(page, i) < cell.length) {
                return NO_ROOM;
            }
            int at = SlottedPage.offset(page, i);
            oldChain[0] = Cells.outside(page, at) ? Cells.firstOverflow(page, at) : 0;
            SlottedPage.remove(page, i);
            outcome = REPLACED;
        } else {
            if (!SlottedPage.fits(page, cell.length)) {
                return NO_ROOM;
            }
            i = -(i + 1);
            outcome = ADDED;
        }
        if (!SlottedPage.insert(page, i, cell)) {
            throw new IllegalStateException("a cell that fitted did not go in");
        }
        Page.lsn(page, l);
        tree.pool.markDirty(f);
        return outcome;
    }

    /** From the root with write latches, splitting what must split. */
    private int pessimistic(byte[] key, byte[] cell, long l, int[] oldChain) {
        BufferPool pool = tree.pool;
        Deque<Frame> path = new ArrayDeque<>();
        boolean rootHeld = true;
        tree.rootLatch.writeLock().lock();
        try {
            int level = tree.rootLevel;
            Frame f = pool.fetch(tree.meta.root);
            f.writeLatch();
            path.push(f);
            while (true) {
                if (safe(f, cell)) {
                    while (path.size() > 1) { // everything above f
                        tree.release(path.removeLast(), true);
                    }
                    if (rootHeld) {
                        tree.rootLatch.writeLock().unlock();
                        rootHeld = false;
                    }
                }
                if (level == 0) {
                    break;
                }
                tree.check(f, Page.INNER, level);
                Frame c = pool.fetch(BTree.childFor(f.data, key));
                c.writeLatch();
                path.push(c);
                f = c;
                level--;
            }
            tree.check(f, Page.LEAF, 0);
            int outcome = intoLeaf(f, key, cell, l, oldChain);
            if (outcome != NO_ROOM) {
                return outcome;
            }
            return splitLeaf(path, key, cell, l, oldChain); // what it leaves held: released below
        } finally {
            while (!path.isEmpty()) {
                tree.release(path.pop(), true);
            }
            if (rootHeld) {
                tree.rootLatch.writeLock().unlock();
            }
        }
    }

    /** A leaf has room for the cell; an inner page for any separator. */
    private boolean safe(Frame f, byte[] cell) {
        if (Page.type(f.data) == Page.LEAF) {
            return SlottedPage.fits(f.data, cell.length);
        }
        return SlottedPage.freeSpace(f.data) >= Cells.maxCell(tree.pool.pageSize());
    }

    /** Splits the full leaf at the path's top with the cell in, then the parents as needed. */
    private int splitLeaf(Deque<Frame> path, byte[] key, byte[] cell, long l, int[] oldChain) {
        Frame left = path.pop();
        byte[] page = left.data;
        List<byte[]> cells = SlottedPage.cells(page, 0, Page.count(page));
        int i = SlottedPage.search(page, key);
        int outcome;
        if (i >= 0) {
            int at = SlottedPage.offset(page, i);
            oldChain[0] = Cells.outside(page, at) ? Cells.firstOverflow(page, at) : 0;
            cells.set(i, cell);
            outcome = REPLACED;
        } else {
            cells.add(-(i + 1), cell);
            outcome = ADDED;
        }
        int m = half(cells, 1, cells.size() - 1);
        Frame right = tree.alloc.allocate(Page.LEAF, l);
        byte[] separator;
        int child = right.page;
        try {
            SlottedPage.setCells(page, cells.subList(0, m));
            SlottedPage.setCells(right.data, cells.subList(m, cells.size()));
            Page.link(right.data, Page.link(page));
            Page.link(page, right.page);
            Page.lsn(page, l);
            tree.pool.markDirty(left);
            separator = SlottedPage.key(right.data, 0);
        } finally {
            tree.release(right, true);
            tree.release(left, true);
        }
        propagate(path, separator, child, 1, l);
        return outcome;
    }

    /**
     * Puts separator {@code key} for new page {@code child} (at {@code level - 1}) into the parent
     * at the path's top, splitting parents up to a safe one or the root.
     */
    private void propagate(Deque<Frame> path, byte[] key, int child, int level, long l) {
        while (!path.isEmpty()) {
            Frame parent = path.peek();
            byte[] page = parent.data;
            byte[] cell = Cells.inner(key, child);
            int i = SlottedPage.search(page, key);
            if (i >= 0) {
                throw new CorruptPageException(
                        tree.pool.file().describe(parent.page)
                                + " already has the separator a split below made");
            }
            i = -(i + 1);
            if (SlottedPage.insert(page, i, cell)) {
                Page.lsn(page, l);
                tree.pool.markDirty(parent);
                tree.release(path.pop(), true);
                return;
            }
            List<byte[]> cells = SlottedPage.cells(page, 0, Page.count(page));
            cells.add(i, cell);
            int m = half(cells, 1, cells.size() - 2);
            byte[] up = cells.get(m);
            Frame right = tree.alloc.allocate(Page.INNER, l);
            try {
                Page.level(right.data, level);
                Page.link(right.data, Page.getInt(up, 2)); // the middle's child leads the right
                SlottedPage.setCells(page, cells.subList(0, m));
                SlottedPage.setCells(right.data, cells.subList(m + 1, cells.size()));
                Page.lsn(page, l);
                tree.pool.markDirty(parent);
                key = java.util.Arrays.copyOfRange(up, Cells.INNER_FIXED, up.length);
                child = right.page;
            } finally {
                tree.release(right, true);
                tree.release(path.pop(), true);
            }
            level++;
        }
        growRoot(key, child, level, l);
    }

    /** The root split (the caller holds the root latch): a new root above both halves. */
    private void growRoot(byte[] key, int child, int level, long l) {
        Frame root = tree.alloc.allocate(Page.INNER, l);
        try {
            Page.level(root.data, level);
            Page.link(root.data, tree.meta.root);
            SlottedPage.insert(root.data, 0, Cells.inner(key, child));
            tree.meta.root = root.page;
            tree.rootLevel = level;
        } finally {
            tree.release(root, true);
        }
    }

    /** The index that splits {@code cells} into halves by bytes, within {@code [lo, hi]}. */
    private static int half(List<byte[]> cells, int lo, int hi) {
        long total = 0;
        for (byte[] c : cells) {
            total += c.length + Cells.SLOT;
        }
        long sum = 0;
        int m = 0;
        while (m < cells.size() && sum < total / 2) {
            sum += cells.get(m).length + Cells.SLOT;
            m++;
        }
        return Math.max(lo, Math.min(hi, m));
    }
}
