package dbf0.base.server;

import dbf0.base.io.InputBuffer;
import dbf0.base.io.OutputBuffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * Drives a {@link ByteSession} over a blocking socket: read what is there, let the session parse
 * it, write all replies at once, repeat until the session or the peer ends it. This is the
 * thread-per-connection way (the {@code pool} and {@code virtual} server models).
 */
public final class SessionRunner {

    private static final int INITIAL_BUFFER = 4096;

    private SessionRunner() {}

    /** Runs until the connection ends; throws on a protocol error or I/O failure. */
    public static void run(Socket socket, ByteSession session) throws IOException {
        run(socket, new byte[0], session);
    }

    /**
     * As {@link #run(Socket, ByteSession)}, for a connection whose first bytes were already read
     * (to see which protocol it speaks): the session gets {@code start} before the socket's bytes.
     */
    public static void run(Socket socket, byte[] start, ByteSession session) throws IOException {
        // Replies are small and written once per read: Nagle's algorithm would hold one back until
        // the peer ACKs the last, and a peer that delays its ACKs adds up to ~40 ms. The event loop
        // sets the same option on its channels.
        socket.setTcpNoDelay(true);
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        InputBuffer input = new InputBuffer(INITIAL_BUFFER);
        OutputBuffer output = new OutputBuffer(INITIAL_BUFFER);
        for (int at = 0; at < start.length; ) {
            ByteBuffer buffer = input.forWriting(0);
            int n = Math.min(buffer.remaining(), start.length - at);
            buffer.put(start, at, n);
            at += n;
        }
        // With bytes in hand the session sees them before anything is read, as after WRITE_FIRST.
        ByteSession.Next next =
                start.length > 0 ? ByteSession.Next.WRITE_FIRST : ByteSession.Next.READ_MORE;
        while (true) {
            if (next == ByteSession.Next.AWAIT) {
                // A thread per connection can afford to block: the replies written so far went out
                // below, and only this connection waits for its writes to become durable.
                session.awaiting().join();
            } else if (next != ByteSession.Next.WRITE_FIRST) {
                ByteBuffer buffer = input.forWriting(session.bytesNeeded());
                int n =
                        in.read(
                                buffer.array(),
                                buffer.arrayOffset() + buffer.position(),
                                buffer.remaining());
                if (n < 0) {
                    session.onEndOfStream(input.pending());
                    return;
                }
                buffer.position(buffer.position() + n);
            }
            // After WRITE_FIRST the replies went out below (a blocking write waits for the client
            // to take them), and after AWAIT the writes are done: the session goes on with what is
            // already buffered.
            try {
                next = session.onRead(input.forReading(), output);
            } finally {
                input.afterReading();
                output.writeTo(
                        out); // an error reply the session wrote before throwing goes out too
            }
            output.trimTo(INITIAL_BUFFER);
            if (next == ByteSession.Next.CLOSE_AFTER_WRITE) {
                return;
            }
        }
    }
}
