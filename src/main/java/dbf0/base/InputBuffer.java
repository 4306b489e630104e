package dbf0.base;

import java.nio.ByteBuffer;

/**
 * A connection's unparsed input. Starts small and grows only as far as the session asks
 * ({@link ByteSession#bytesNeeded()}), which the protocol bounds by its frame limit: a length
 * field can never make the server allocate more than that.
 */
public final class InputBuffer {

  private final int initialCapacity;
  private ByteBuffer buffer;

  public InputBuffer(int initialCapacity) {
    this.initialCapacity = initialCapacity;
    this.buffer = ByteBuffer.allocate(initialCapacity);
  }

  /** The buffer in write mode, with room for at least {@code needed} bytes in total. */
  public ByteBuffer forWriting(int needed) {
    if (needed > buffer.capacity()) {
      ByteBuffer bigger = ByteBuffer.allocate(Math.max(needed, Math.min(buffer.capacity() * 2, Integer.MAX_VALUE - 8)));
      buffer.flip();
      bigger.put(buffer);
      buffer = bigger;
    } else if (!buffer.hasRemaining() && buffer.capacity() < Integer.MAX_VALUE / 2) {
      ByteBuffer bigger = ByteBuffer.allocate(buffer.capacity() * 2);
      buffer.flip();
      bigger.put(buffer);
      buffer = bigger;
    }
    return buffer;
  }

  /** Switches to read mode for the session. */
  public ByteBuffer forReading() {
    buffer.flip();
    return buffer;
  }

  /** Back to write mode, keeping the unconsumed bytes; shrinks after a large frame. */
  public void afterReading() {
    buffer.compact();
    if (buffer.position() == 0 && buffer.capacity() > 16 * initialCapacity) {
      buffer = ByteBuffer.allocate(initialCapacity);
    }
  }

  /** Unconsumed bytes (in write mode). */
  public int pending() {
    return buffer.position();
  }
}
