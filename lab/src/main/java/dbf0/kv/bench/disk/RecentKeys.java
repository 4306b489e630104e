package dbf0.kv.bench.disk;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The last {@value #CAPACITY} keys put, shared by every thread: the 2020 benchmark's "known keys",
 * from which a get or delete draws with probability knownKeyRate so that it finds something. A
 * ring: each put overwrites the oldest slot. Bounded: {@value #CAPACITY} longs whatever the run.
 */
final class RecentKeys {

    /** How many recent puts a known key is drawn from, as in the 2020 benchmark. */
    static final int CAPACITY = 10_000;

    private final AtomicLongArray ring = new AtomicLongArray(CAPACITY);
    private final AtomicLong added = new AtomicLong();

    /** Remembers that {@code key} was just put. */
    void add(long key) {
        long slot = added.getAndIncrement() % CAPACITY;
        // lazySet: a reader that sees the slot a little late draws a slightly older key, harmless
        ring.lazySet((int) slot, key);
    }

    /** A key drawn uniformly from the last puts, or -1 before the first put. */
    long sample(SplittableRandom random) {
        long n = Math.min(added.get(), CAPACITY);
        return n == 0 ? -1 : ring.get(random.nextInt((int) n));
    }
}
