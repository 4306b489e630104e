package dbf0.kv.bench;

import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * A sharded connector's connection to one server: a buffered output that parts are written to and
 * flushed once per refill, and the replies read in place, the last one's types kept until it is
 * counted. Memory: 64 KiB each way, plus a reply buffer grown to the largest reply frame.
 */
final class ShardLink implements AutoCloseable {

    private final InetSocketAddress address;
    private final Socket socket = new Socket();
    private final OutputStream out;
    private final ReplyReader in;
    private final ReplyTypes replies = new ReplyTypes();
    private boolean wellFormed;
    private boolean moved;

    /** Connects and sends the v2 preamble (buffered: it leaves with the first flush). */
    ShardLink(InetSocketAddress address, ProtocolLimits limits) throws IOException {
        this.address = address;
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            socket.connect(address, 10_000);
            out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            in = new ReplyReader(socket.getInputStream(), limits);
            V2Codec.writePreamble(out);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    InetSocketAddress address() {
        return address;
    }

    void send(FramePart part) throws IOException {
        part.writeTo(out);
    }

    void flush() throws IOException {
        out.flush();
    }

    /** Reply bytes already here: reading the next reply may still block if they are too few. */
    int buffered() {
        return in.buffered();
    }

    /**
     * Reads the next reply frame and its types. With {@code cluster}, a MOVED reply is noted
     * ({@link #moved()}) rather than counted as malformed.
     */
    void read(boolean cluster) throws IOException {
        ByteBuffer body = in.readFrame();
        moved = cluster && body.hasRemaining() && body.get(0) == V2Codec.MOVED;
        wellFormed = !moved && replies.read(body);
    }

    /** Whether the last reply was MOVED: none of its part was applied. */
    boolean moved() {
        return moved;
    }

    /** Whether the last reply was a well-formed reply frame. */
    boolean wellFormed() {
        return wellFormed;
    }

    /** The last reply's types. */
    ReplyTypes replies() {
        return replies;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
