package dbf0.ycsb;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations the binding needs, over one v2 connection used by one YCSB thread. Two
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

    /** One v2 RANGE request and its reply; an ERROR reply throws with the server's message. */
    Response.Range range(Request.Range range) throws IOException;

    /**
     * Up to {@code count} pairs from {@code start} on, in key order: RANGE pages until there are
     * enough or the keys run out (a page stops early at the server's caps).
     */
    default List<Response.Pair> scan(ByteArrayWrapper start, int count) throws IOException {
        List<Response.Pair> pairs = new ArrayList<>(Math.min(count, 1024));
        Response.Range page = range(new Request.Range(start, false, ByteArrayWrapper.of(), count));
        pairs.addAll(page.pairs());
        while (page.more() && pairs.size() < count && !page.pairs().isEmpty()) {
            ByteArrayWrapper last = page.pairs().getLast().key();
            page =
                    range(
                            new Request.Range(
                                    last, true, ByteArrayWrapper.of(), count - pairs.size()));
            pairs.addAll(page.pairs());
        }
        return pairs;
    }

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
        public Response.Range range(Request.Range range) throws IOException {
            return client.scan(range);
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
