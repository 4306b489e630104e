package dbf0.common;

import static com.google.common.base.Preconditions.checkNotNull;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.commons.codec.binary.Hex;

/**
 * A byte array that can be a {@link java.util.Map} key.
 *
 * <p>Why a wrapper: a Java array's {@code equals} and {@code hashCode} are those of {@link Object},
 * its identity. Two arrays holding the same bytes are two different keys, so a GET could never find
 * what a SET stored. This class compares and hashes the bytes instead.
 *
 * <p>It does not copy the array it wraps (the decoder hands over arrays nobody else touches); call
 * {@link #copy()} when the array is going to be reused.
 */
public final class ByteArrayWrapper implements Comparable<ByteArrayWrapper> {

    private static final VarHandle WORDS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] array;

    /**
     * Wraps {@code array} itself, without copying it.
     *
     * @param array the bytes, not copied; must not be null
     */
    public ByteArrayWrapper(byte[] array) {
        this.array = checkNotNull(array, "array");
    }

    /**
     * Wraps the given bytes, e.g. {@code ByteArrayWrapper.of(0x01, 0x02)}.
     *
     * @param bytes the bytes, each truncated to its low 8 bits
     * @return a wrapper around a new array
     */
    public static ByteArrayWrapper of(int... bytes) {
        byte[] array = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            array[i] = (byte) bytes[i];
        }
        return new ByteArrayWrapper(array);
    }

    /**
     * Parses lower- or upper-case hex, e.g. {@code "0a0b"}.
     *
     * @param hex an even number of hex digits
     * @return a wrapper around the decoded bytes
     * @throws IllegalArgumentException if {@code hex} is not hex
     */
    public static ByteArrayWrapper fromHex(String hex) {
        try {
            return new ByteArrayWrapper(Hex.decodeHex(hex));
        } catch (org.apache.commons.codec.DecoderException e) {
            throw new IllegalArgumentException("not a hex string: " + hex, e);
        }
    }

    /**
     * The wrapped array itself (not a copy): do not modify it while the wrapper is a map key.
     *
     * @return the array this wrapper was made with
     */
    public byte[] getArray() {
        return array;
    }

    /**
     * The number of bytes wrapped.
     *
     * @return the number of bytes
     */
    public int length() {
        return array.length;
    }

    /**
     * A wrapper around a fresh copy of the bytes, independent of this wrapper's buffer.
     *
     * @return a new wrapper over a new array
     */
    public ByteArrayWrapper copy() {
        return new ByteArrayWrapper(array.clone());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteArrayWrapper other && Arrays.equals(array, other.array);
    }

    /**
     * Not {@link Arrays#hashCode(byte[])}: its base-31 sum gives keys that differ in their last
     * bytes (a counter) neighbouring or equal codes, which crowd a hash map's bins. This one mixes
     * whole 8-byte words and ends with MurmurHash3's 64-bit finaliser, which spreads a change in
     * any byte over the whole code.
     */
    @Override
    public int hashCode() {
        byte[] a = array;
        long h = 0x9e3779b97f4a7c15L ^ a.length;
        int i = 0;
        for (; i + Long.BYTES <= a.length; i += Long.BYTES) {
            h = step(h, (long) WORDS.get(a, i));
        }
        if (i < a.length) {
            long tail = 0;
            for (int shift = 0; i < a.length; i++, shift += 8) {
                tail |= (a[i] & 0xffL) << shift;
            }
            h = step(h, tail);
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) (h ^ (h >>> 32));
    }

    /** One word into the state; for a fixed word each step is a bijection, so none is lost. */
    private static long step(long h, long word) {
        h = (h ^ word) * 0x9e3779b97f4a7c15L;
        return h ^ (h >>> 29);
    }

    @Override
    public int compareTo(ByteArrayWrapper o) {
        return Arrays.compareUnsigned(array, o.array);
    }

    /**
     * Lower-case hex of the bytes, e.g. {@code 0a0b}; the empty array prints as an empty string.
     */
    @Override
    public String toString() {
        return Hex.encodeHexString(array);
    }
}
