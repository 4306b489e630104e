package dbf0.common;

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
 * <p>The hash is {@link Arrays#hashCode(byte[])} passed through MurmurHash3's 32-bit finaliser
 * (Austin Appleby, public domain). Without it, short keys hash to small, adjacent numbers:
 * all 256 one-byte keys would sit in the first few hundred bins of a large table. Mixing spreads
 * them over the whole table, which is better for every hash map and lets the race demo observe
 * a resize wherever it is in its copy loop.
 */
public final class ByteArrayWrapper implements Comparable<ByteArrayWrapper> {

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
    int h = Arrays.hashCode(array);
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
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
