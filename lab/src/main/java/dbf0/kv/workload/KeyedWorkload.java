package dbf0.kv.workload;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.common.ByteArrayWrapper;
import java.util.Random;

/**
 * A workload over a known set of records, as YCSB runs them: {@code records} keys loaded before the
 * measured interval, an {@link OperationMix} over them, and a {@link KeyDistribution} choosing
 * which record each operation touches. The seed's workload (fresh random bytes for every key) is
 * the other kind, {@link RandomKeyValueSource}.
 *
 * <p>Record {@code i}'s key is {@code i} written big-endian into the key's last {@code
 * min(keyLength, 8)} bytes, zeros before: every key has the run's key length, and distinct records
 * have distinct keys as long as {@code 256^keyLength} exceeds the indexes used (with shorter keys,
 * inserts past that wrap onto old keys and become updates). Values are derived from keys as {@link
 * RandomKeyValueSource} derives them, so a reader could check any value.
 *
 * @param workload YCSB's name (A, B, C, D, F) when the mix came from one, else null
 */
public record KeyedWorkload(
        String workload,
        long records,
        KeyDistribution distribution,
        OperationMix mix,
        int keyLength,
        int valueLength) {

    public KeyedWorkload {
        checkArgument(records >= 1, "records must be at least 1, got %s", records);
        checkArgument(
                keyLength >= 1 && valueLength >= 0,
                "keyLength must be at least 1 and valueLength not negative");
        checkArgument(
                records <= capacity(keyLength),
                "%s records need distinct keys, but %s-byte keys have only %s",
                records,
                keyLength,
                capacity(keyLength));
    }

    /** How many distinct keys {@code keyLength} bytes can hold, capped at Long.MAX_VALUE. */
    public static long capacity(int keyLength) {
        return keyLength >= 8 ? Long.MAX_VALUE : 1L << (8 * keyLength);
    }

    /** Record {@code index}'s key, in a new array. */
    public ByteArrayWrapper key(long index) {
        byte[] key = new byte[keyLength];
        long value = keyLength >= 8 ? index : index % capacity(keyLength);
        for (int i = keyLength - 1, shift = 0; i >= 0 && shift < 64; i--, shift += 8) {
            key[i] = (byte) (value >>> shift);
        }
        return new ByteArrayWrapper(key);
    }

    /** The value stored under {@code key}, in a new array. */
    public ByteArrayWrapper value(ByteArrayWrapper key) {
        return RandomKeyValueSource.expectedValue(key, valueLength);
    }

    /** The operations of one load thread, over the run's shared {@code space}. */
    public Generator generator(KeySpace space, Random random) {
        return new Generator(space, distribution.chooser(space), random);
    }

    /**
     * The records as a {@link KeyValueSource}, for the v1 per-op load generator, which decides GET
     * or SET itself (by setFrac): keys come from the distribution, values from the keys. Reads and
     * updates only; that generator has no inserts or read-modify-writes.
     */
    public KeyValueSource readUpdateSource(KeySpace space, Random random) {
        KeyChooser chooser = distribution.chooser(space);
        return new KeyValueSource() {
            @Override
            public ByteArrayWrapper nextKey() {
                return key(chooser.next(random));
            }

            @Override
            public ByteArrayWrapper valueFor(ByteArrayWrapper key) {
                return value(key);
            }
        };
    }

    /** One operation: what it does, its key, and for writes the value (null for a read). */
    public record Op(OperationKind operation, ByteArrayWrapper key, ByteArrayWrapper value) {}

    /** Draws operations for one load thread; not thread-safe. */
    public final class Generator {
        private final KeySpace space;
        private final KeyChooser chooser;
        private final Random random;

        private Generator(KeySpace space, KeyChooser chooser, Random random) {
            this.space = space;
            this.chooser = chooser;
            this.random = random;
        }

        /** The next operation, in new arrays (they may be kept: requests hold them until sent). */
        public Op next() {
            OperationKind operation = mix.pick(random);
            ByteArrayWrapper key =
                    key(
                            operation == OperationKind.INSERT
                                    ? space.claimInsert()
                                    : chooser.next(random));
            return new Op(operation, key, operation == OperationKind.READ ? null : value(key));
        }
    }
}
