package dbf0.kv.server;

import dbf0.base.server.BaseServer;
import dbf0.base.server.SessionRunner;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.storage.Store;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/**
 * The seed's server: a thread serves one connection at a time (the {@code pool} and {@code virtual}
 * models). The first byte says what the client wants; a v1 request is served right here, top to
 * bottom, and the connection is closed when {@link #processConnection} returns.
 *
 * <p>The server adds no locking: thread safety is entirely the store's. With a {@link
 * java.util.HashMap} and several threads, keys go missing: the race demo, {@code dbf0 race}, shows
 * it.
 */
final class BlockingKeyValueServer extends BaseServer {

    /** Room for the largest v1 request (257 bytes), so that one read usually takes it all. */
    private static final int BUFFER_SIZE = 512;

    // Set once, before start() starts the threads that read them.
    private ServerContext context;
    private Store store;

    /** A server that {@link #serve} gives its store to before it starts. */
    BlockingKeyValueServer(String name, InetSocketAddress bindAddress, int nThreads) {
        super(name, bindAddress, nThreads);
    }

    /** What the connections are served from; call before {@link #start()}. */
    void serve(ServerContext context) {
        this.context = context;
        this.store = context.store;
    }

    @Override
    protected void processConnection(Socket socket) throws IOException {
        context.connectionsReceived.increment(); // INFO's count, whatever the protocol
        SocketInput in = new SocketInput(socket.getInputStream());
        int first = in.read();
        switch (first) {
            case -1 -> throw new EOFException("connected but sent no request");
            case V1Codec.SET -> processSet(in);
            case V1Codec.GET -> processGet(in, socket.getOutputStream());
            default -> processSession(socket, in, first);
        }
    }

    /** SET: no reply; the connection closes once put returns (under a log, once it is durable). */
    private void processSet(InputStream in) throws IOException {
        ByteArrayWrapper key = V1Codec.readBytes(in);
        ByteArrayWrapper value = V1Codec.readBytes(in);
        store.put(key, value);
    }

    /** GET: reply FOUND with the value, or NOT_FOUND. */
    private void processGet(InputStream in, OutputStream out) throws IOException {
        ByteArrayWrapper key = V1Codec.readBytes(in);
        ByteArrayWrapper value = store.get(key);
        out.write(V1Codec.encodeGetResponse(value));
    }

    /**
     * Any other first byte: v2 and Redis's RESP (chapter 2) keep the connection open for many
     * requests, and a {@link ProtocolSession} serves them (or refuses a byte no protocol starts
     * with). It gets the byte read above and exactly what the buffer took from the socket; the
     * socket still holds the rest, in order.
     */
    private void processSession(Socket socket, SocketInput in, int first) throws IOException {
        byte[] buffered = in.takeBuffered();
        byte[] start = new byte[1 + buffered.length];
        start[0] = (byte) first;
        System.arraycopy(buffered, 0, start, 1, buffered.length);
        SessionRunner.run(socket, start, new ProtocolSession(context));
    }

    /**
     * The socket's stream with a buffer that can be handed on. A plain {@link BufferedInputStream}
     * would keep bytes it read ahead, and a session reading the socket after it would miss them.
     */
    private static final class SocketInput extends BufferedInputStream {
        SocketInput(InputStream in) {
            super(in, BUFFER_SIZE);
        }

        /** The bytes read from the socket but not consumed yet; afterwards the buffer is empty. */
        synchronized byte[] takeBuffered() {
            byte[] rest = Arrays.copyOfRange(buf, pos, count);
            pos = count;
            return rest;
        }
    }
}
