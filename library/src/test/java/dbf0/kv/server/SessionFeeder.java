package dbf0.kv.server;

import dbf0.base.io.InputBuffer;
import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/** Test helper: feeds a session bytes in chunks, as a server would, without any socket. */
final class SessionFeeder {

    final ByteSession session;
    final InputBuffer input = new InputBuffer(16);
    final OutputBuffer output = new OutputBuffer(16);
    ByteSession.Next last = ByteSession.Next.READ_MORE;

    SessionFeeder(ByteSession session) {
        this.session = session;
    }

    /** A connection's session over {@code map}, with the server's default options. */
    static ProtocolSession session(Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        return new ProtocolSession(new ServerContext(new MapStore(map), ServerOptions.defaults()));
    }

    /** Delivers {@code bytes[from, to)} as one read. */
    ByteSession.Next feed(byte[] bytes, int from, int to) throws IOException {
        // The buffer grows only as bytes arrive (at most doubling when full), as on a real socket.
        for (int at = from; at < to; ) {
            ByteBuffer buffer = input.forWriting(session.bytesNeeded());
            int n = Math.min(buffer.remaining(), to - at);
            buffer.put(bytes, at, n);
            at += n;
        }
        return resume();
    }

    /** Calls the session on what is buffered, without new bytes (after WRITE_FIRST, say). */
    ByteSession.Next resume() throws IOException {
        do {
            if (last == ByteSession.Next.AWAIT) {
                session.awaiting().join(); // as the thread-per-connection runner does
            }
            try {
                last = session.onRead(input.forReading(), output);
            } finally {
                input.afterReading();
            }
        } while (last == ByteSession.Next.AWAIT && awaitWrites);
        return last;
    }

    /** Whether {@link #resume} waits through AWAIT as a server would (true) or returns it. */
    boolean awaitWrites = true;

    /** Delivers the bytes split at {@code split} (two reads), then returns the output so far. */
    byte[] feedSplit(byte[] bytes, int split) throws IOException {
        feed(bytes, 0, split);
        feed(bytes, split, bytes.length);
        return output.toByteArray();
    }
}
