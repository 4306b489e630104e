package dbf0.kv.storage.btree;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Read sixth: the B+tree over the pool's pages. Keys and values live in leaves, in key order, each
 * leaf linked to the next; inner pages hold separators that route a search down ({@link Cells}).
 * This file reads (search, get, scan) and deletes; {@link Insert} puts and splits.
 *
 * <h2>Latches: crabbing</h2>
 *
 * A reader goes down holding at most two latches: it latches the child, then lets go of the parent
 * (like a crab, one leg always holding on). Everyone latches top-down and, along the leaves, left
 * to right, so no two threads ever wait for each other in a circle. Readers and writers on
 * different leaves therefore proceed in parallel; they meet only in the shared latches of the upper
 * pages, which they hold for the moment it takes to pick a child.
 *
 * <p>A writer first goes down the same way and write-latches only the leaf (optimistic: most writes
 * fit their leaf). Only if the leaf must split does it start again, write-latching from the root
 * down and letting go of everything above a page that has room for one more separator (safe: a
 * split below stops there). Deletes never change the tree's shape: a delete removes the cell and
 * leaves an underfull or even empty leaf in place to take later inserts of its key range (lazy
 * deletion, as PostgreSQL's and many production B-trees do; merging siblings would need latches to
 * the left, against the order above). Freed overflow pages go to the free list; a {@link Vacuum}
 * ({@code dbf0 compact}) rebuilds the tree dense and gives the file's space back.
 *
 * <p>{@link #shape} guards the tree's identity: every operation holds it shared, a clear holds it
 * alone. {@link #rootLatch} guards which page is the root and how high it is.
 */
final class BTree {

    /** What {@link #getIfCached} answers when a page it needs is not in memory. */
    static final ByteArrayWrapper NOT_IN_MEMORY = new ByteArrayWrapper(new byte[0]);

    private static final byte[] SMALLEST = new byte[0];

    final BufferPool pool;
    final Allocator alloc;
    final Meta meta;
    final ReentrantReadWriteLock shape = new ReentrantReadWriteLock();
    final ReentrantReadWriteLock rootLatch = new ReentrantReadWriteLock();

    /** The LSN of the last change: every change takes the next one and stamps its pages. */
    final AtomicLong lsn;

    final AtomicLong keys;

    /** A bound on every value's length, raised before a longer value is put. */
    final AtomicLong largestValue;

    /** The root's level: 0 while the root is a leaf. Under {@link #rootLatch}. */
    int rootLevel;

    private final Insert insert;

    /** The tree {@code meta} describes; reads the root to learn its level. */
    BTree(BufferPool pool, Meta meta) {
        this.pool = pool;
        this.meta = meta;
        this.alloc = new Allocator(pool, meta);
        this.lsn = new AtomicLong(meta.lsn);
        this.keys = new AtomicLong(meta.keyCount);
        this.largestValue = new AtomicLong(meta.largestValue);
        Frame root = pool.fetch(meta.root);
        try {
            this.rootLevel = Page.level(root.data);
        } finally {
            pool.unpin(root);
        }
        this.insert = new Insert(this);
    }

    int maxKey() {
        return Cells.maxKey(pool.pageSize());
    }

    // ---------------------------------------------------------------- descent

    /**
     * The leaf whose range holds {@code key}, pinned and latched (write-latched if {@code
     * exclusive}); with {@code cachedOnly}, null as soon as a page is not in memory.
     */
    Frame leaf(byte[] key, boolean exclusive, boolean cachedOnly) {
        Frame f;
        int level;
        rootLatch.readLock().lock();
        try {
            level = rootLevel;
            f = cachedOnly ? pool.fetchIfCached(meta.root) : pool.fetch(meta.root);
            if (f == null) {
                return null;
            }
            latch(f, exclusive && level == 0);
        } finally {
            rootLatch.readLock().unlock();
        }
        while (level > 0) {
            check(f, Page.INNER, level);
            int child = childFor(f.data, key);
            Frame c;
            try {
                c = cachedOnly ? pool.fetchIfCached(child) : pool.fetch(child);
            } catch (RuntimeException e) {
                release(f, false);
                throw e;
            }
            if (c == null) {
                release(f, false);
                return null;
            }
            level--;
            latch(c, exclusive && level == 0);
            release(f, false);
            f = c;
        }
        try {
            check(f, Page.LEAF, 0);
        } catch (RuntimeException e) {
            release(f, exclusive);
            throw e;
        }
        return f;
    }

    private static void latch(Frame f, boolean exclusive) {
        if (exclusive) {
            f.writeLatch();
        } else {
            f.readLatch();
        }
    }

    /** Unlatches and unpins. */
    void release(Frame f, boolean exclusive) {
        if (exclusive) {
            f.writeUnlatch();
        } else {
            f.readUnlatch();
        }
        pool.unpin(f);
    }

    /** A page met on the way down must be of the type and level its parent promised. */
    void check(Frame f, byte type, int level) {
        if (Page.type(f.data) != type || Page.level(f.data) != level) {
            throw new CorruptPageException(
                    pool.file().describe(f.page)
                            + " should be "
                            + (type == Page.LEAF ? "a leaf" : "an inner page of level " + level)
                            + " but is of type "
                            + Page.type(f.data)
                            + ", level "
                            + Page.level(f.data));
        }
    }

    /** The child of inner page {@code page} whose range holds {@code key}. */
    static int childFor(byte[] page, byte[] key) {
        int i = SlottedPage.search(page, key);
        if (i < 0) {
            i = -(i + 1) - 1; // the last separator below the key
        }
        return i < 0 ? Page.link(page) : Cells.child(page, SlottedPage.offset(page, i));
    }

    // ---------------------------------------------------------------- reads

    /** The value under {@code key}, or null. */
    ByteArrayWrapper get(byte[] key) {
        shape.readLock().lock();
        try {
            Frame f = leaf(key, false, false);
            try {
                int i = SlottedPage.search(f.data, key);
                return i < 0 ? null : value(f.data, SlottedPage.offset(f.data, i));
            } finally {
                release(f, false);
            }
        } finally {
            shape.readLock().unlock();
        }
    }

    /**
     * As {@link #get} if every page it needs is in memory, else {@link #NOT_IN_MEMORY} at once: a
     * value in overflow pages always counts as not in memory.
     */
    ByteArrayWrapper getIfCached(byte[] key) {
        if (!shape.readLock().tryLock()) {
            return NOT_IN_MEMORY; // a clear or compaction holds the tree: not a wait for the loop
        }
        try {
            Frame f = leaf(key, false, true);
            if (f == null) {
                return NOT_IN_MEMORY;
            }
            try {
                int i = SlottedPage.search(f.data, key);
                if (i < 0) {
                    return null;
                }
                int at = SlottedPage.offset(f.data, i);
                return Cells.outside(f.data, at)
                        ? NOT_IN_MEMORY
                        : new ByteArrayWrapper(Cells.inlineValue(f.data, at));
            } finally {
                release(f, false);
            }
        } finally {
            shape.readLock().unlock();
        }
    }

    /** The value of the leaf cell at {@code at}; the caller holds the leaf's latch. */
    ByteArrayWrapper value(byte[] leaf, int at) {
        if (!Cells.outside(leaf, at)) {
            return new ByteArrayWrapper(Cells.inlineValue(leaf, at));
        }
        return new ByteArrayWrapper(
                Overflow.read(pool, Cells.firstOverflow(leaf, at), Cells.valueLength(leaf, at)));
    }

    /**
     * Up to {@code limit} pairs from {@code from} (null: the smallest) to before {@code to} (null:
     * the end), in key order: one descent, then along the leaf links, latch-coupled left to right.
     */
    List<KeyValue> scan(byte[] from, byte[] to, int limit) {
        List<KeyValue> out = new ArrayList<>(Math.min(limit, 1024));
        shape.readLock().lock();
        try {
            Frame f = leaf(from == null ? SMALLEST : from, false, false);
            try {
                int i = from == null ? 0 : SlottedPage.search(f.data, from);
                i = i < 0 ? -(i + 1) : i;
                while (true) {
                    for (int n = Page.count(f.data); i < n; i++) {
                        if (out.size() >= limit
                                || (to != null && SlottedPage.compare(f.data, i, to) >= 0)) {
                            return out;
                        }
                        int at = SlottedPage.offset(f.data, i);
                        out.add(
                                new KeyValue(
                                        new ByteArrayWrapper(SlottedPage.key(f.data, i)),
                                        value(f.data, at)));
                    }
                    int next = Page.link(f.data);
                    if (next == 0 || out.size() >= limit) {
                        return out;
                    }
                    Frame n = pool.fetch(next);
                    n.readLatch();
                    release(f, false);
                    f = n;
                    check(f, Page.LEAF, 0);
                    i = 0;
                }
            } finally {
                release(f, false);
            }
        } finally {
            shape.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------- writes

    /** Puts {@code value} under {@code key}; true if it replaced a value. */
    boolean put(byte[] key, byte[] value) {
        return insert.put(key, value);
    }

    /** Removes {@code key}; true if it was there. The leaf stays, however empty (lazy deletion). */
    boolean delete(byte[] key) {
        long l = lsn.incrementAndGet();
        int chain = 0;
        shape.readLock().lock();
        try {
            Frame f = leaf(key, true, false);
            try {
                int i = SlottedPage.search(f.data, key);
                if (i < 0) {
                    return false;
                }
                int at = SlottedPage.offset(f.data, i);
                if (Cells.outside(f.data, at)) {
                    chain = Cells.firstOverflow(f.data, at);
                }
                SlottedPage.remove(f.data, i);
                Page.lsn(f.data, l);
                pool.markDirty(f);
                keys.decrementAndGet();
            } finally {
                release(f, true);
            }
            if (chain != 0) { // no reader can reach it now: the leaf no longer points to it
                Overflow.free(alloc, pool, chain, l);
            }
            return true;
        } finally {
            shape.readLock().unlock();
        }
    }

    /**
     * Removes every key at once: the pool forgets every page, and the file is an empty root leaf
     * again as of the next checkpoint, which cuts the file to its two pages.
     */
    void clear() {
        long l = lsn.incrementAndGet();
        shape.writeLock().lock();
        rootLatch.writeLock().lock();
        alloc.lock().lock();
        try {
            pool.discardAll();
            meta.pageCount = 1;
            meta.freeHead = 0;
            meta.freeCount = 0;
            Frame root = alloc.allocate(Page.LEAF, l);
            meta.root = root.page;
            root.writeUnlatch();
            pool.unpin(root);
            rootLevel = 0;
            keys.set(0);
        } finally {
            alloc.lock().unlock();
            rootLatch.writeLock().unlock();
            shape.writeLock().unlock();
        }
    }

    /** A copy of the meta as of now, for a checkpoint taken while no change runs. */
    Meta snapshotMeta() {
        alloc.lock().lock();
        rootLatch.readLock().lock();
        try {
            Meta m = meta.copy();
            m.keyCount = keys.get();
            m.largestValue = largestValue.get();
            m.lsn = lsn.get();
            return m;
        } finally {
            rootLatch.readLock().unlock();
            alloc.lock().unlock();
        }
    }
}
