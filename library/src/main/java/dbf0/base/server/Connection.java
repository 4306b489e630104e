package dbf0.base.server;

import dbf0.base.io.InputBuffer;
import dbf0.base.io.OutputBuffer;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One connection of the {@code nio} server model: its channel, its protocol session, its buffers
 * and where it stands. Owned by one event loop thread, so nothing here is synchronized.
 */
final class Connection {
    final SocketChannel channel;
    final ByteSession session;
    final InputBuffer input;
    final OutputBuffer output;
    SelectionKey key;
    long lastActive = System.nanoTime();
    boolean closeAfterWrite;

    /** The session returned WRITE_FIRST: decode the buffered input again once replies drain. */
    boolean paused;

    /** The peer shut down its side; close once everything buffered is answered and sent. */
    boolean inputClosed;

    /**
     * The session returned AWAIT: nothing is read or decoded until its future completes and puts
     * this connection on its loop's queue of resumed connections.
     */
    boolean awaiting;

    Connection(SocketChannel channel, ByteSession session, int initialBuffer) {
        this.channel = channel;
        this.session = session;
        this.input = new InputBuffer(initialBuffer);
        this.output = new OutputBuffer(initialBuffer);
    }

    /** The peer's address for a log line, or "?" once the channel cannot tell. */
    Object remote() {
        try {
            return channel.getRemoteAddress();
        } catch (IOException e) {
            return "?";
        }
    }
}
