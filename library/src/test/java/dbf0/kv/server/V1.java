package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.V1Client;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** Test helper: one v1 operation per connection, as the seed does it. */
public final class V1 {

    private V1() {}

    public static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new Socket();
        socket.setSoTimeout(5_000);
        socket.connect(address, 5_000);
        return socket;
    }

    /** A SET that returns once the server has applied it (it closes the connection afterwards). */
    public static void set(InetSocketAddress address, ByteArrayWrapper key, ByteArrayWrapper value)
            throws IOException {
        try (Socket socket = connect(address)) {
            V1Client.setAndAwaitClose(socket, key, value);
        }
    }

    public static ByteArrayWrapper get(InetSocketAddress address, ByteArrayWrapper key)
            throws IOException {
        try (Socket socket = connect(address)) {
            return V1Client.get(socket, key);
        }
    }
}
