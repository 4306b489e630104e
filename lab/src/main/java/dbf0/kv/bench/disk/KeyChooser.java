package dbf0.kv.bench.disk;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which key each operation uses. Keys are decimal numbers below the key space, zero-padded to one
 * width ({@code 0000042}), as in the 2020 benchmark, so that their byte order is their numeric
 * order. Shared by every thread; each thread brings its own random generator.
 */
final class KeyChooser {

    private final long keySpace;
    private final int width;
    private final Mix mix;
    private final double knownKeyRate;
    private final RecentKeys recent = new RecentKeys();
    private final AtomicLong nextSequential = new AtomicLong();

    KeyChooser(long keySpace, Mix mix, double knownKeyRate) {
        if (keySpace < 1) {
            throw new IllegalArgumentException("key space must be at least 1, got " + keySpace);
        }
        this.keySpace = keySpace;
        this.width = Long.toString(keySpace - 1).length();
        this.mix = mix;
        this.knownKeyRate = knownKeyRate;
    }

    /** The bytes of every key. */
    int keyLength() {
        return width;
    }

    /** The key of a put: the next in order under fillseq, else uniform; remembered as known. */
    long putKey(SplittableRandom random) {
        long key =
                mix.sequential()
                        ? nextSequential.getAndIncrement() % keySpace
                        : random.nextLong(keySpace);
        recent.add(key);
        return key;
    }

    /**
     * The key of a get or delete: with probability knownKeyRate (2020 mixes only) one of the last
     * puts, else uniform.
     */
    long readKey(SplittableRandom random) {
        if (mix.usesKnownKeys() && random.nextDouble() < knownKeyRate) {
            long known = recent.sample(random);
            if (known >= 0) {
                return known;
            }
        }
        return random.nextLong(keySpace);
    }

    /** {@code key} as its zero-padded decimal bytes. */
    byte[] format(long key) {
        byte[] out = new byte[width];
        long rest = key;
        for (int i = width - 1; i >= 0; i--) {
            out[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return out;
    }
}
