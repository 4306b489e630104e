package dbf0.kv.bench.disk;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which keys hold a value now, as the benchmark's own writes left them: one bit per key of the key
 * space, so that space amplification divides the bytes on disk by the same live data for every
 * engine. Bounded: key spaces above {@value #MAX_KEYS} keys (16 MiB of bits) are not tracked, and
 * space amplification is then left out.
 */
final class LiveKeys {

    /** The largest key space tracked. */
    static final long MAX_KEYS = 1L << 27;

    private final AtomicLongArray bits;
    private final LongAdder count = new LongAdder();

    private LiveKeys(long keySpace) {
        bits = new AtomicLongArray((int) ((keySpace + 63) / 64));
    }

    /** A tracker for {@code keySpace} keys, or null when the space is too large to track. */
    static LiveKeys forKeySpace(long keySpace) {
        return keySpace <= MAX_KEYS ? new LiveKeys(keySpace) : null;
    }

    /** Marks {@code key} as holding a value. */
    void put(long key) {
        int word = (int) (key >>> 6);
        long bit = 1L << (key & 63);
        long old = bits.getAndUpdate(word, w -> w | bit);
        if ((old & bit) == 0) {
            count.increment();
        }
    }

    /** Marks {@code key} as deleted. */
    void delete(long key) {
        int word = (int) (key >>> 6);
        long bit = 1L << (key & 63);
        long old = bits.getAndUpdate(word, w -> w & ~bit);
        if ((old & bit) != 0) {
            count.decrement();
        }
    }

    /** Keys holding a value now (racy while writers run, exact once they stop). */
    long count() {
        return count.sum();
    }
}
