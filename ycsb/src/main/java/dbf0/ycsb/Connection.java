package dbf0.ycsb;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The three operations the binding needs, over one v2 connection used by one YCSB thread. Two
 * implementations, chosen by the {@code dbf0.connection} property, so that their costs can be
 * compared in one run (docs/ycsb.md).
 */
interface Connection extends AutoCloseable {

    /** The value under {@code key}, or null. */
    ByteArrayWrapper get(ByteArrayWrapper key) throws IOException;

    /** Stores {@code value} under {@code key}; returns once the server has applied it. */
    void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException;

    /** Removes {@code key}; true if it was there. */
    boolean delete(ByteArrayWrapper key) throws IOException;

    @Override
    void close();

    /** The connection {@code kind} names: "blocking" (the default) or "client". */
    static Connection open(String kind, InetSocketAddress address) throws IOException {
        return switch (kind) {
            case "blocking" -> new BlockingConnection(address);
            case "client" -> new ClientConnection(KeyValueClient.connect(address));
            default ->
                    throw new IllegalArgumentException(
                            "dbf0.connection is blocking or client, got '" + kind + "'");
        };
    }

    /**
     * dbf0's general-purpose {@link KeyValueClient}: thread-safe and pipelining, so a reply is read
     * by the client's own reader thread and handed to the caller through a future. That hand-off
     * costs two thread wake-ups per operation, which is why it is not the default here.
     */
    record ClientConnection(KeyValueClient client) implements Connection {
        @Override
        public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
            return client.get(key);
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
        public void close() {
            client.close();
        }
    }
}
