package dbf0.kv.client;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V1Codec;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;

/**
 * One v1 operation on an already connected socket. Every request leaves in a single write, so it
 * travels in one TCP segment whatever Nagle's algorithm would do.
 */
public final class V1Client {

    private V1Client() {}

    /**
     * Sends a SET. v1 has no reply: returning means the bytes were handed to the kernel.
     *
     * @param socket a socket connected to a v1 server, not yet used
     * @param key the key (at most 127 bytes in v1)
     * @param value the value (at most 127 bytes in v1)
     * @throws IOException if the socket fails
     */
    public static void set(Socket socket, ByteArrayWrapper key, ByteArrayWrapper value)
            throws IOException {
        socket.getOutputStream().write(V1Codec.encodeSet(key, value));
    }

    /**
     * Sends a SET and waits until the server closes the connection. A v1 server closes right after
     * applying the one operation of a connection, so the server closes first and the TIME_WAIT
     * state lands on the server's side instead of using up the client's ephemeral ports.
     *
     * @param socket a socket connected to a v1 server, not yet used
     * @param key the key (at most 127 bytes in v1)
     * @param value the value (at most 127 bytes in v1)
     * @throws IOException if the socket fails, or the server sends anything before closing
     */
    public static void setAndAwaitClose(Socket socket, ByteArrayWrapper key, ByteArrayWrapper value)
            throws IOException {
        set(socket, key, value);
        InputStream in = socket.getInputStream();
        if (in.read() != -1) {
            throw new IOException("v1 server sent bytes after a SET");
        }
    }

    /**
     * Sends a GET and reads its answer: the value, or null when the key is not found. The caller
     * closes right after, as the seed's client did, so the client usually closes first.
     *
     * @param socket a socket connected to a v1 server, not yet used
     * @param key the key (at most 127 bytes in v1)
     * @return the value, or null when the key is not found
     * @throws IOException if the socket fails or the answer is malformed
     */
    public static ByteArrayWrapper get(Socket socket, ByteArrayWrapper key) throws IOException {
        socket.getOutputStream().write(V1Codec.encodeGet(key));
        return V1Codec.readGetResponse(new BufferedInputStream(socket.getInputStream(), 256));
    }

    /**
     * A GET that then waits for the server's close, for the same reason as {@link
     * #setAndAwaitClose}: the TIME_WAIT lands on the server, not on the client's ports.
     *
     * @param socket a socket connected to a v1 server, not yet used
     * @param key the key (at most 127 bytes in v1)
     * @return the value, or null when the key is not found
     * @throws IOException if the socket fails, the answer is malformed, or more bytes follow it
     */
    public static ByteArrayWrapper getAndAwaitClose(Socket socket, ByteArrayWrapper key)
            throws IOException {
        socket.getOutputStream().write(V1Codec.encodeGet(key));
        InputStream in = new BufferedInputStream(socket.getInputStream(), 256);
        ByteArrayWrapper value = V1Codec.readGetResponse(in);
        if (in.read() != -1) {
            throw new IOException("v1 server sent bytes after a GET response");
        }
        return value;
    }
}
