package dbf0.kv.workload;

import dbf0.common.ByteArrayWrapper;
import java.util.Random;

/**
 * Uniformly random keys of {@code keyLength} bytes, so the key space has 256^keyLength keys: one
 * byte gives 256 keys (nearly every GET finds its key), sixteen bytes make every key new.
 *
 * <p>The value is derived from the key, {@code value[i] = ~key[i % keyLength]}, so that a reader
 * can check a value without remembering what was written. Both buffers are reused between calls.
 */
public final class RandomKeyValueSource implements KeyValueSource {

    private final Random random;
    private final byte[] key;
    private final byte[] value;
    private final ByteArrayWrapper keyWrapper;
    private final ByteArrayWrapper valueWrapper;

    public RandomKeyValueSource(int keyLength, int valueLength, Random random) {
        if (keyLength < 1) {
            throw new IllegalArgumentException("keyLength must be at least 1, got " + keyLength);
        }
        if (valueLength < 0) {
            throw new IllegalArgumentException(
                    "valueLength must not be negative, got " + valueLength);
        }
        this.random = random;
        this.key = new byte[keyLength];
        this.value = new byte[valueLength];
        this.keyWrapper = new ByteArrayWrapper(key);
        this.valueWrapper = new ByteArrayWrapper(value);
    }

    @Override
    public ByteArrayWrapper nextKey() {
        random.nextBytes(key);
        return keyWrapper;
    }

    @Override
    public ByteArrayWrapper valueFor(ByteArrayWrapper k) {
        deriveValue(k.getArray(), value);
        return valueWrapper;
    }

    /** The value this source stores for {@code key}, in a new array. */
    public static ByteArrayWrapper expectedValue(ByteArrayWrapper key, int valueLength) {
        byte[] v = new byte[valueLength];
        deriveValue(key.getArray(), v);
        return new ByteArrayWrapper(v);
    }

    /**
     * value[i] = ~key[i % key.length]: invert the key once, then double the pattern with arraycopy.
     */
    private static void deriveValue(byte[] k, byte[] into) {
        int filled = Math.min(k.length, into.length);
        for (int i = 0; i < filled; i++) {
            into[i] = (byte) ~k[i];
        }
        while (filled < into.length) {
            int n = Math.min(filled, into.length - filled);
            System.arraycopy(into, 0, into, filled, n);
            filled += n;
        }
    }
}
