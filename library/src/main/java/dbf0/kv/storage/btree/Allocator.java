package dbf0.kv.storage.btree;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Where new pages come from and freed ones go: the free list first, the file's end otherwise. The
 * free list is a chain through the free pages themselves (each a {@link Page#FREE} page whose link
 * is the next), headed in the {@link Meta}; so freeing costs no memory, and the list is in the file
 * as of every checkpoint like everything else.
 *
 * <p>A page freed here is reused by the next allocation, which is how deleted values' overflow
 * pages and a cleared tree's pages are reused; the file never shrinks by itself (a {@link Vacuum}
 * gives the space back to the file system).
 */
final class Allocator {

    private final BufferPool pool;
    private final Meta meta;
    private final ReentrantLock lock = new ReentrantLock();

    Allocator(BufferPool pool, Meta meta) {
        this.pool = pool;
        this.meta = meta;
    }

    /** The tree's state, guarded by {@link #lock} for its allocation fields. */
    Meta meta() {
        return meta;
    }

    ReentrantLock lock() {
        return lock;
    }

    /**
     * A fresh page of {@code type}, formatted, pinned, write-latched and dirty; the caller
     * unlatches and unpins it.
     */
    Frame allocate(byte type, long lsn) {
        Frame f;
        lock.lock();
        try {
            if (meta.freeHead != 0) {
                int page = meta.freeHead;
                f = pool.fetch(page);
                f.writeLatch();
                if (Page.type(f.data) != Page.FREE) {
                    f.writeUnlatch();
                    pool.unpin(f);
                    throw new CorruptPageException(
                            pool.file().describe(page) + " is on the free list but is not free");
                }
                meta.freeHead = Page.link(f.data);
                meta.freeCount--;
            } else {
                int page = meta.pageCount++;
                f = pool.create(page);
                f.writeLatch();
            }
        } finally {
            lock.unlock();
        }
        Page.format(f.data, type, f.page, lsn);
        pool.markDirty(f);
        return f;
    }

    /** Puts {@code page}, which nothing points to any more, at the head of the free list. */
    void free(int page, long lsn) {
        lock.lock();
        try {
            Frame f = pool.fetch(page);
            f.writeLatch();
            try {
                Page.format(f.data, Page.FREE, page, lsn);
                Page.link(f.data, meta.freeHead);
                pool.markDirty(f);
            } finally {
                f.writeUnlatch();
                pool.unpin(f);
            }
            meta.freeHead = page;
            meta.freeCount++;
        } finally {
            lock.unlock();
        }
    }
}
