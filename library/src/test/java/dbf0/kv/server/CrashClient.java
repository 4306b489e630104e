package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * One connection of a crash test, over v2 ({@link KeyValueClient}) or RESP (by hand): a request
 * returns only once the server has answered it, and any failure (the server killed) is an
 * IOException, after which the outcome of the request in flight is unknown.
 */
interface CrashClient extends AutoCloseable {

    /** Connects over RESP when {@code resp}, else over v2. */
    static CrashClient connect(InetSocketAddress address, boolean resp) throws IOException {
        return resp ? new Resp(address) : new V2(address);
    }

    void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException;

    /** True if the key was there. */
    boolean delete(ByteArrayWrapper key) throws IOException;

    /** The value, or null if the key is absent. */
    ByteArrayWrapper get(ByteArrayWrapper key) throws IOException;

    @Override
    void close() throws IOException;

    /** v2 through the library's client. */
    final class V2 implements CrashClient {
        private final KeyValueClient client;

        V2(InetSocketAddress address) throws IOException {
            client = KeyValueClient.connect(address);
        }

        @Override
        public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
            client.set(key, value);
        }

        @Override
        public boolean delete(ByteArrayWrapper key) throws IOException {
            return client.delete(key);
        }

        @Override
        public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
            return client.get(key);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** RESP by hand: SET answers +OK, DEL :n, GET a bulk string or $-1; else it is a failure. */
    final class Resp implements CrashClient {
        private final RespConnection connection;

        Resp(InetSocketAddress address) throws IOException {
            connection = new RespConnection(address);
        }

        private String call(byte[]... args) throws IOException {
            return connection.call(args);
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
            String reply = call(ascii("SET"), key.getArray(), value.getArray());
            if (!reply.equals("+OK")) {
                throw new IOException("SET answered " + reply);
            }
        }

        @Override
        public boolean delete(ByteArrayWrapper key) throws IOException {
            String reply = call(ascii("DEL"), key.getArray());
            if (!reply.equals(":0") && !reply.equals(":1")) {
                throw new IOException("DEL answered " + reply);
            }
            return reply.equals(":1");
        }

        @Override
        public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
            String reply = call(ascii("GET"), key.getArray());
            if (reply.equals("$-1")) {
                return null;
            }
            if (!reply.startsWith("$")) {
                throw new IOException("GET answered " + reply);
            }
            int length = Integer.parseInt(reply.substring(1));
            if (length < 0 || length > 1 << 20) {
                throw new IOException("GET announced " + length + " bytes");
            }
            byte[] value = connection.body(length);
            if (value.length < length || !connection.line().isEmpty()) {
                throw new EOFException("server gone in a reply");
            }
            return new ByteArrayWrapper(value);
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
