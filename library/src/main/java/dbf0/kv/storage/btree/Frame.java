package dbf0.kv.storage.btree;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One slot of the {@link BufferPool}: a page's bytes in memory and what the pool and the tree need
 * to share it.
 *
 * <p>Two kinds of lock, on purpose. The <em>pin count</em> says "someone uses this frame: do not
 * give it to another page"; the pool changes what page a frame holds only under its own lock and
 * only for a frame with no pins. The <em>latch</em> guards the bytes themselves: readers of the
 * page share it, a writer holds it alone. A pin lasts as long as a latch or longer; the tree takes
 * the latch after the pin and lets go of it before the unpin.
 */
final class Frame {

    final byte[] data;
    final ReentrantReadWriteLock latch = new ReentrantReadWriteLock();
    final AtomicInteger pins = new AtomicInteger();

    /** The page held, or -1; changed only under the pool's lock with no pins. */
    int page = -1;

    /** CLOCK's bit: set on every use, cleared as the hand passes; under the pool's lock. */
    boolean referenced;

    /** True from a change until the checkpoint that wrote it; a dirty frame is never evicted. */
    volatile boolean dirty;

    /** True while the bytes are being read; the reader holds the latch meanwhile. */
    volatile boolean loading;

    /** Why the read failed, for the threads that waited for it. */
    volatile RuntimeException failed;

    Frame(int pageSize) {
        this.data = new byte[pageSize];
    }

    /** Shares the page's bytes. */
    void readLatch() {
        latch.readLock().lock();
    }

    void readUnlatch() {
        latch.readLock().unlock();
    }

    /** Holds the page's bytes alone. */
    void writeLatch() {
        latch.writeLock().lock();
    }

    void writeUnlatch() {
        latch.writeLock().unlock();
    }

    @Override
    public String toString() {
        return "Frame(page " + page + ", pins " + pins.get() + (dirty ? ", dirty)" : ")");
    }
}
