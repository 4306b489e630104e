package dbf0.kv.workload;

import dbf0.common.ByteArrayWrapper;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers which keys a client has set, so that a GET which misses one can be counted as a missing
 * key.
 *
 * <p>Caveat of the seed protocol: a v1 SET has no reply, so "the client sent it" does not mean "the
 * server applied it". A GET sent right after may be handled first by another server thread and miss
 * the key honestly. The Benchmark therefore uses {@link #noop()}; the race demo uses a stricter
 * rule (a key counts only after a GET has seen it).
 */
public interface KeyValueTracker {

    /** Records that {@code key} was set; implementations must copy it (sources reuse buffers). */
    void trackSet(ByteArrayWrapper key);

    /** Whether {@code key} was recorded by {@link #trackSet}. */
    boolean contains(ByteArrayWrapper key);

    /** Number of distinct keys recorded. */
    int size();

    /** A tracker that remembers nothing: {@link #contains} is always false. */
    static KeyValueTracker noop() {
        return NoopTracker.INSTANCE;
    }

    /** A thread-safe tracker that keeps a copy of every key it is given. */
    static KeyValueTracker inMemory() {
        return new InMemoryTracker();
    }

    /** See {@link KeyValueTracker#noop()}. */
    enum NoopTracker implements KeyValueTracker {
        INSTANCE;

        @Override
        public void trackSet(ByteArrayWrapper key) {}

        @Override
        public boolean contains(ByteArrayWrapper key) {
            return false;
        }

        @Override
        public int size() {
            return 0;
        }
    }

    /** See {@link KeyValueTracker#inMemory()}. */
    final class InMemoryTracker implements KeyValueTracker {
        private final Set<ByteArrayWrapper> keys = ConcurrentHashMap.newKeySet();

        @Override
        public void trackSet(ByteArrayWrapper key) {
            if (!keys.contains(key)) {
                keys.add(key.copy());
            }
        }

        @Override
        public boolean contains(ByteArrayWrapper key) {
            return keys.contains(key);
        }

        @Override
        public int size() {
            return keys.size();
        }
    }
}
