package dbf0.jmh;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.workload.RandomKeyValueSource;
import java.util.Random;

/**
 * The keys and values every benchmark here works with: 16-byte random keys and 64-byte values, the
 * sizes of docs/1-seed.md's benchmark example ({@code ./dbf0 bench 4 8 concurrent 16 64 0.1
 * PT10S}). Keys come from dbf0's own {@link RandomKeyValueSource} with a fixed seed, so every run
 * and every backend sees the same keys; a value is derived from its key the way that source does
 * it, {@code value[i] = ~key[i % 16]}.
 */
final class Workload {

    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 64;

    /** Any fixed number: it makes the keys, and each thread's sequence of picks, repeatable. */
    static final long SEED = 0x0DBF0_2020L;

    private Workload() {}

    /** {@code count} distinct keys, each in its own array. */
    static ByteArrayWrapper[] keys(int count) {
        RandomKeyValueSource source =
                new RandomKeyValueSource(KEY_BYTES, VALUE_BYTES, new Random(SEED));
        ByteArrayWrapper[] keys = new ByteArrayWrapper[count];
        for (int i = 0; i < count; i++) {
            // The source reuses its buffer between calls: keep a copy.
            keys[i] = source.nextKey().copy();
        }
        return keys;
    }

    /** The value stored under {@code key}, in a new array. */
    static ByteArrayWrapper valueFor(ByteArrayWrapper key) {
        return RandomKeyValueSource.expectedValue(key, VALUE_BYTES);
    }
}
