package dbf0.base.io;

import java.nio.ByteBuffer;

/**
 * A connection's unparsed input, on the server or the client side. Starts at {@code
 * initialCapacity} and grows only when it is full, by at most doubling, and never past what the
 * reader says it needs (a session's {@code bytesNeeded()}) unless that is unknown (0). A length
 * header alone therefore allocates nothing: six bytes announcing a 16 MiB frame cost the initial 4
 * KiB, and the buffer reaches 16 MiB only once about 8 MiB have actually arrived.
 *
 * <p>Bound: {@code capacity <= max(initialCapacity, 2 * bytes buffered)}, and while growing the old
 * and new arrays coexist for one copy, so at most three times the buffered bytes. The buffered
 * bytes are at most one request, which each protocol bounds by its frame limit.
 */
public final class InputBuffer {

    private final int initialCapacity;
    private ByteBuffer buffer;

    public InputBuffer(int initialCapacity) {
        this.initialCapacity = initialCapacity;
        this.buffer = ByteBuffer.allocate(initialCapacity);
    }

    /**
     * The buffer in write mode with room for at least one more byte. {@code needed} (the bytes the
     * session wants buffered in total, 0 if unknown) caps growth; it never sizes it alone.
     */
    public ByteBuffer forWriting(int needed) {
        if (!buffer.hasRemaining()) {
            int capacity = buffer.capacity();
            int doubled =
                    capacity <= (Integer.MAX_VALUE - 8) / 2 ? capacity * 2 : Integer.MAX_VALUE - 8;
            // Grow no further than the session asked for: a frame that ends exactly at the buffer's
            // end then needs no larger array. A full buffer always gains at least one byte of room.
            int target = needed > capacity ? Math.min(doubled, needed) : doubled;
            ByteBuffer bigger = ByteBuffer.allocate(target);
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

    /** The array's size: what this connection's input costs in memory right now. */
    public int capacity() {
        return buffer.capacity();
    }
}
