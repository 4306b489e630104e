package dbf0.common;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.commons.codec.binary.Hex;

/**
 * A byte array with value semantics, so that it can be a {@link java.util.Map} key.
 *
 * <p>Java arrays compare by identity: two arrays holding the same bytes are different map keys.
 * This wrapper compares and hashes the bytes themselves. It does not copy on construction (the
 * protocol decoder hands over arrays it will never touch again); call {@link #copy()} when the
 * underlying buffer is going to be reused, as {@link dbf0.kv.workload.RandomKeyValueSource} does.
 *
 * <p>The hash reads the bytes eight at a time as little-endian longs, folds each word into a
 * 64-bit state with a multiply and a shift, and finishes with MurmurHash3's 64-bit finaliser
 * (Austin Appleby, public domain) before folding to 32 bits. Every step is a bijection of the
 * state for a fixed word, so keys that differ in one word never share the 64-bit state, and the
 * 32-bit codes collide only by chance. The earlier {@link Arrays#hashCode(byte[])} (a base-31
 * polynomial), even mixed afterwards, sent the 100,000 keyed-workload records (a big-endian
 * index in the last bytes) to 9,122 distinct codes: about 11 keys a code, so
 * {@code ConcurrentHashMap} turned its bins into trees and spent a quarter of a zipfian batched
 * run comparing keys (docs/performance.md). Short keys still spread over the whole table.
 */
public final class ByteArrayWrapper implements Comparable<ByteArrayWrapper> {

  private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] array;

  /**
   * Wraps {@code array} itself, without copying it.
   *
   * @param array the bytes, not copied; must not be null
   */
  public ByteArrayWrapper(byte[] array) {
    if (array == null) {
      throw new NullPointerException("array");
    }
    this.array = array;
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

  /** One word into the state: xor, multiply by an odd constant, xor-shift; a bijection for each word. */
  private static long step(long h, long word) {
    h = (h ^ word) * 0x9e3779b97f4a7c15L;
    return h ^ (h >>> 29);
  }

  @Override
  public int compareTo(ByteArrayWrapper o) {
    return Arrays.compareUnsigned(array, o.array);
  }

  /** Lower-case hex of the bytes, e.g. {@code 0a0b}; the empty array prints as an empty string. */
  @Override
  public String toString() {
    return Hex.encodeHexString(array);
  }
}
