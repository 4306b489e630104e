package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;

/**
 * A table's bloom filter: asked "might this key be in the table?", it answers no for most absent
 * keys without reading a block, and never answers no for a present one. {@value #BITS_PER_KEY} bits
 * per key and {@value #HASHES} probes give about 1% false positives.
 *
 * <p>Our own rather than Guava's, so that its bytes can be documented (docs/formats.md): a key's
 * 64-bit hash h is FNV-1a over its bytes followed by MurmurHash3's 64-bit finaliser; with h1 its
 * low 32 bits and h2 its high 32 bits, probe i (0 to 6) sets or tests bit {@code (h1 + i * h2)} as
 * an unsigned 32-bit sum, modulo the number of bits (double hashing). Bit b is bit {@code b % 64}
 * of word {@code b / 64}.
 */
final class Bloom {

    static final int BITS_PER_KEY = 10;
    static final int HASHES = 7;

    private final long[] words;

    private Bloom(long[] words) {
        this.words = words;
    }

    /** An empty filter sized for {@code keys} keys. */
    static Bloom forKeys(long keys) {
        long bits = Math.max(64, keys * BITS_PER_KEY);
        return new Bloom(new long[(int) Math.min((bits + 63) / 64, Integer.MAX_VALUE - 8)]);
    }

    static long hash(ByteArrayWrapper key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getArray()) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    void add(long hash) {
        long bits = 64L * words.length;
        int h1 = (int) hash;
        int h2 = (int) (hash >>> 32);
        for (int i = 0; i < HASHES; i++) {
            long bit = Integer.toUnsignedLong(h1 + i * h2) % bits;
            words[(int) (bit >>> 6)] |= 1L << (bit & 63);
        }
    }

    boolean mightContain(ByteArrayWrapper key) {
        return mightContain(hash(key));
    }

    /** As {@link #mightContain(ByteArrayWrapper)}, for a key whose {@link #hash} is known. */
    boolean mightContain(long hash) {
        long bits = 64L * words.length;
        int h1 = (int) hash;
        int h2 = (int) (hash >>> 32);
        for (int i = 0; i < HASHES; i++) {
            long bit = Integer.toUnsignedLong(h1 + i * h2) % bits;
            if ((words[(int) (bit >>> 6)] & (1L << (bit & 63))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Bytes held in memory. */
    long bytes() {
        return 8L * words.length;
    }

    /** The filter block's body: u32 hash count, u32 word count, the words (u64 each). */
    int encodedSize() {
        return 8 + 8 * words.length;
    }

    void encode(ByteBuffer out) {
        out.putInt(HASHES);
        out.putInt(words.length);
        for (long w : words) {
            out.putLong(w);
        }
    }

    static Bloom decode(ByteBuffer in, String where) {
        int hashes = in.getInt();
        int count = in.getInt();
        if (hashes != HASHES || count <= 0 || 8L * count != in.remaining()) {
            throw new CorruptTableException(
                    where + ": bad filter (" + hashes + " hashes, " + count + " words)");
        }
        long[] words = new long[count];
        in.asLongBuffer().get(words);
        return new Bloom(words);
    }
}
