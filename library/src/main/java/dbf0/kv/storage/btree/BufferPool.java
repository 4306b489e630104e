package dbf0.kv.storage.btree;

import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Read fifth: the pages in memory, bounded in bytes; the only memory of the tree that grows with
 * the data, up to its bound. A caller {@link #fetch}es a page (pinned), latches it, reads or
 * changes it, unlatches and {@link #unpin}s it. A page not in memory is read into a free frame, or
 * into the frame of a page evicted to make room.
 *
 * <h2>Eviction: CLOCK</h2>
 *
 * The frames stand in a circle with a hand and a bit each, set whenever the page is used. Looking
 * for a victim, the hand sweeps: a set bit is cleared and passed over (a second chance), a clear
 * bit with no pins is the victim. That approximates least-recently-used with one bit per page and
 * no bookkeeping on a hit but setting it, so a read that finds its page touches no shared list.
 * LRU-K (K=2: evict the page whose second-to-last use is oldest) is the better policy when a scan
 * walks through many pages once: with LRU or CLOCK such a scan pushes the hot pages out, while
 * LRU-2 sees that the scanned pages were used once and evicts them first. It costs a history of
 * timestamps per page and a priority queue on every use. This store's scans (RANGE, SCAN, YCSB E)
 * are short next to the pool, so CLOCK's cheaper hit wins here; a store serving analytic scans over
 * a large table would want LRU-K or a scan-resistant variant (ARC, 2Q, TinyLFU as the LSM's block
 * cache uses).
 *
 * <h2>Dirty pages</h2>
 *
 * A changed page stays in its frame until a {@link Checkpoint} has written it: the tree's file
 * changes only at checkpoints, which is what makes it consistent after a crash (no-steal). Dirty
 * frames are therefore never victims. If every frame is dirty or pinned the pool takes one more
 * frame past its bound rather than stall a writer that holds the log's lock (counted in {@link
 * #framesOverBound}); the store keeps that rare by starting a checkpoint when a quarter of the pool
 * is dirty and holding writers back at three quarters, and {@link #trim} gives the extra frames
 * back once a checkpoint has cleaned them.
 *
 * <p>One lock guards the page table, the pins' increments, the hand and the bits; it is never held
 * across a read of the disk. A page being read is in the table with its frame latched by the
 * reader, so another thread that wants it pins it and waits on the latch.
 */
final class BufferPool {

    private volatile PageFile file;
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Integer, Frame> table = new HashMap<>();
    private final List<Frame> frames = new ArrayList<>();
    private final AtomicInteger dirty = new AtomicInteger();
    private int hand;
    private long reads;
    private long hits;
    private long evictions;

    /**
     * A pool of at most {@code bytes / pageSize} frames (and at least 8: a split pins a path and
     * two new pages).
     */
    BufferPool(PageFile file, long bytes) {
        this.file = file;
        this.capacity = (int) Math.max(8, Math.min(Integer.MAX_VALUE, bytes / file.pageSize()));
    }

    int pageSize() {
        return file.pageSize();
    }

    PageFile file() {
        return file;
    }

    /** The bound, in frames. */
    int capacity() {
        return capacity;
    }

    /**
     * Page {@code page}, pinned, read from the file if it is not in memory.
     *
     * @throws CorruptPageException if the page read is not a good page
     * @throws StorageFailureException if the read fails
     */
    Frame fetch(int page) {
        Frame f;
        boolean mine = false;
        lock.lock();
        try {
            f = table.get(page);
            if (f != null) {
                f.pins.incrementAndGet();
                f.referenced = true;
                hits++;
            } else {
                f = victim();
                f.page = page;
                f.pins.set(1);
                f.referenced = true;
                f.failed = null;
                f.loading = true;
                f.writeLatch(); // free and unpinned: nobody else holds it
                table.put(page, f);
                reads++;
                mine = true;
            }
        } finally {
            lock.unlock();
        }
        if (mine) {
            load(f, page);
        } else if (f.loading) {
            f.readLatch(); // wait for the thread reading it
            f.readUnlatch();
        }
        RuntimeException failure = f.failed;
        if (failure != null) {
            unpin(f);
            throw failure;
        }
        return f;
    }

    private void load(Frame f, int page) {
        try {
            file.read(page, f.data);
        } catch (IOException | RuntimeException e) {
            RuntimeException failure =
                    e instanceof RuntimeException r
                            ? r
                            : new StorageFailureException(
                                    "reading " + file.describe(page) + " failed: " + e, e);
            f.failed = failure;
            lock.lock();
            try {
                table.remove(page);
                f.page = -1;
            } finally {
                lock.unlock();
            }
        } finally {
            f.loading = false;
            f.writeUnlatch();
        }
    }

    /**
     * Page {@code page}, pinned, if it is in memory and read; else null, without reading: for a
     * caller that must not wait for the disk (an event loop).
     */
    Frame fetchIfCached(int page) {
        lock.lock();
        try {
            Frame f = table.get(page);
            if (f == null || f.loading) {
                return null;
            }
            f.pins.incrementAndGet();
            f.referenced = true;
            hits++;
            return f;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A frame for a page that is new to the file (never written), zeroed, pinned and dirty; the
     * caller formats it.
     */
    Frame create(int page) {
        lock.lock();
        try {
            if (table.containsKey(page)) {
                throw new IllegalStateException("page " + page + " is already in the pool");
            }
            Frame f = victim();
            f.page = page;
            f.pins.set(1);
            f.referenced = true;
            f.failed = null;
            java.util.Arrays.fill(f.data, (byte) 0);
            table.put(page, f);
            markDirty(f);
            return f;
        } finally {
            lock.unlock();
        }
    }

    void unpin(Frame f) {
        if (f.pins.decrementAndGet() < 0) {
            throw new IllegalStateException("unpinned more than pinned: " + f);
        }
    }

    /** Called by whoever changed the page, holding its write latch. */
    void markDirty(Frame f) {
        if (!f.dirty) {
            f.dirty = true;
            dirty.incrementAndGet();
        }
    }

    /** Called by the checkpoint once the page's bytes as of now are in the file. */
    void markClean(Frame f) {
        if (f.dirty) {
            f.dirty = false;
            dirty.decrementAndGet();
        }
    }

    long dirtyBytes() {
        return (long) dirty.get() * file.pageSize();
    }

    long capacityBytes() {
        return (long) capacity * file.pageSize();
    }

    /** The dirty frames now, for a checkpoint to copy. */
    List<Frame> dirtyFrames() {
        lock.lock();
        try {
            List<Frame> out = new ArrayList<>();
            for (Frame f : frames) {
                if (f.dirty) {
                    out.add(f);
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets every page, dirty or not (a clear: none of them matters any more). No frame may be
     * pinned: the caller holds the whole tree.
     */
    void discardAll() {
        lock.lock();
        try {
            for (Frame f : frames) {
                if (f.pins.get() > 0 || f.loading) {
                    throw new IllegalStateException("discarding a page in use: " + f);
                }
                markClean(f);
                f.page = -1;
                f.referenced = false;
            }
            table.clear();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets every page, as {@link #discardAll}, and reads {@code next} from now on: a vacuum's
     * new file, which holds every page the pool held, changed or not.
     */
    void replaceFile(PageFile next) {
        lock.lock();
        try {
            discardAll();
            file = next;
        } finally {
            lock.unlock();
        }
        trim();
    }

    /** Frames beyond the bound now (see the class comment). */
    int framesOverBound() {
        lock.lock();
        try {
            return Math.max(0, frames.size() - capacity);
        } finally {
            lock.unlock();
        }
    }

    /** Drops clean, unpinned frames while there are more than the bound. */
    void trim() {
        lock.lock();
        try {
            for (int i = frames.size() - 1; i >= 0 && frames.size() > capacity; i--) {
                Frame f = frames.get(i);
                if (!f.dirty && f.pins.get() == 0 && !f.loading) {
                    if (f.page >= 0) {
                        table.remove(f.page);
                    }
                    frames.remove(i);
                }
            }
            hand = 0;
        } finally {
            lock.unlock();
        }
    }

    /** Reads from the disk and hits since open. */
    long[] counters() {
        lock.lock();
        try {
            return new long[] {reads, hits, evictions};
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}: a frame to reuse, taken out of the table. */
    private Frame victim() {
        if (frames.size() < capacity) {
            Frame f = new Frame(file.pageSize());
            frames.add(f);
            return f;
        }
        int n = frames.size();
        for (int swept = 0; swept < 2 * n; swept++) {
            Frame f = frames.get(hand);
            hand = (hand + 1) % n;
            if (f.pins.get() > 0 || f.dirty || f.loading) {
                continue;
            }
            if (f.referenced) {
                f.referenced = false; // a second chance
                continue;
            }
            if (f.page >= 0) {
                table.remove(f.page);
                evictions++;
            }
            f.page = -1;
            return f;
        }
        Frame f = new Frame(file.pageSize()); // every frame dirty or pinned: past the bound
        frames.add(f);
        return f;
    }
}
