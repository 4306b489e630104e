package dbf0.kv.bench;

import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * One connection's v2 reply frames, read into one buffer for the whole run (grown to the largest
 * frame seen, at most the frame limit): reading a reply makes no garbage. The frame's body is then
 * counted where it lies ({@link ReplyTypes}).
 */
final class ReplyReader {

    private final Input in;
    private final ProtocolLimits limits;
    private ByteBuffer body = ByteBuffer.allocate(64 * 1024);

    ReplyReader(InputStream socket, ProtocolLimits limits) {
        this.in = new Input(socket);
        this.limits = limits;
    }

    /**
     * A buffered socket input that says how many bytes it already holds. {@code available()} would
     * ask the kernel too, one system call per reply; the bytes read in one go are what matters
     * here: once they are answered, the window is refilled while more replies arrive.
     */
    private static final class Input extends BufferedInputStream {
        Input(InputStream socket) {
            super(socket, 64 * 1024);
        }

        int buffered() {
            return count - pos;
        }
    }

    /** Reply bytes already read from the socket and not yet taken: reading them will not block. */
    int buffered() {
        return in.buffered();
    }

    /** The stream itself, for a caller that decodes replies into objects instead. */
    InputStream stream() {
        return in;
    }

    /**
     * The next reply frame's body, from position 0 to its limit, valid until the next call: the
     * same checks as the decoder's blocking read (a length over the frame limit is fatal, an end of
     * stream mid-frame an error).
     */
    ByteBuffer readFrame() throws IOException {
        body.clear(); // the last frame's limit must not cut the header short
        byte[] header = body.array();
        if (in.readNBytes(header, 0, V2Codec.HEADER_BYTES) < V2Codec.HEADER_BYTES) {
            throw new EOFException("stream ended between or inside reply frames");
        }
        int size = body.getInt(0);
        if (size < 0 || size > limits.maxFrameBytes()) {
            throw new ProtocolException(
                    "reply frame of " + Integer.toUnsignedLong(size) + " bytes is over the limit");
        }
        if (body.capacity() < size) {
            body = ByteBuffer.allocate(Math.max(size, 2 * body.capacity()));
        }
        if (in.readNBytes(body.array(), 0, size) < size) {
            throw new EOFException("stream ended inside a reply frame of " + size + " bytes");
        }
        return body.clear().limit(size);
    }
}
