package dbf0.base.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * Replies waiting to be written, in one growable heap buffer (write mode between calls). Many
 * pipelined replies accumulate here and leave in a single write system call.
 */
public final class OutputBuffer {

    /**
     * Sessions stop decoding while this many reply bytes wait to be sent (a session's {@code
     * Next.WRITE_FIRST}), so pending replies stay below this plus one reply.
     */
    public static final int HIGH_WATER_MARK = 1 << 20;

    private ByteBuffer buffer;

    public OutputBuffer(int initialCapacity) {
        buffer = ByteBuffer.allocate(initialCapacity);
    }

    /** The buffer, positioned at the end of the pending bytes, with at least {@code bytes} free. */
    public ByteBuffer reserve(int bytes) {
        if (buffer.remaining() < bytes) {
            int needed = buffer.position() + bytes;
            int capacity = Math.max(needed, buffer.capacity() * 2);
            ByteBuffer bigger = ByteBuffer.allocate(capacity);
            buffer.flip();
            bigger.put(buffer);
            buffer = bigger;
        }
        return buffer;
    }

    public void put(byte b) {
        reserve(1).put(b);
    }

    public void put(byte[] bytes) {
        reserve(bytes.length).put(bytes);
    }

    /** Bytes waiting to be written. */
    public int pending() {
        return buffer.position();
    }

    /** True once the pending replies reach {@link #HIGH_WATER_MARK}: decode no more for now. */
    public boolean aboveHighWater() {
        return buffer.position() >= HIGH_WATER_MARK;
    }

    public boolean isEmpty() {
        return buffer.position() == 0;
    }

    /** Writes everything to a blocking stream. */
    public void writeTo(OutputStream out) throws IOException {
        if (buffer.position() > 0) {
            out.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        }
    }

    /**
     * Writes what a non-blocking channel accepts now.
     *
     * @return true when everything was written
     */
    public boolean writeTo(WritableByteChannel channel) throws IOException {
        buffer.flip();
        try {
            channel.write(buffer);
            return !buffer.hasRemaining();
        } finally {
            buffer.compact();
        }
    }

    /** Shrinks a buffer that grew for one large reply back to {@code capacity} once it is empty. */
    public void trimTo(int capacity) {
        if (buffer.position() == 0 && buffer.capacity() > capacity) {
            buffer = ByteBuffer.allocate(capacity);
        }
    }

    /** A copy of the bytes waiting to be written. */
    public byte[] toByteArray() {
        byte[] bytes = new byte[buffer.position()];
        System.arraycopy(buffer.array(), 0, bytes, 0, bytes.length);
        return bytes;
    }
}
