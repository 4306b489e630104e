package dbf0.kv.storage.lsm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a table that compaction removed may be closed: once every read that could still be using it
 * has ended. A read enters before it takes the store's state and leaves when done; a table leaves
 * the state before it is retired. Reads are counted under one of two epochs: to free what was
 * retired, the background flips the epoch and waits, without blocking, for the old epoch's count to
 * reach zero; reads that enter after the flip count under the new one and cannot see the table.
 * (The idea of read-copy-update's grace periods, with two counters.)
 *
 * <p>So retired tables are held as long as the reads that began before their removal, no longer:
 * memory, file descriptors and the disk space of deleted files do not pile up under a long run of
 * compactions, and a long scan keeps every table it reads open until it ends.
 */
final class ReadGate {

    private final AtomicLong[] active = {new AtomicLong(), new AtomicLong()};
    private final AtomicInteger epoch = new AtomicInteger();

    /** Enters a read; pass the result to {@link #leave}. */
    int enter() {
        while (true) {
            int e = epoch.get();
            active[e].incrementAndGet();
            if (epoch.get() == e) {
                return e; // counted before any flip that follows
            }
            active[e].decrementAndGet(); // flipped meanwhile: count under the new epoch
        }
    }

    /** Leaves a read entered under {@code e}. */
    void leave(int e) {
        active[e].decrementAndGet();
    }

    /** Starts a grace period: returns the epoch whose reads must end. One at a time. */
    int flip() {
        int old = epoch.get();
        epoch.set(old ^ 1);
        return old;
    }

    /** Whether every read entered under {@code e} has left. */
    boolean drained(int e) {
        return active[e].get() == 0;
    }
}
