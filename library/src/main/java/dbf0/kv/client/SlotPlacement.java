package dbf0.kv.client;

import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A cluster's slot map as a client keeps it: the nodes, and for each of the 16,384 hash slots the
 * node that serves it. Learned from any one node with a v2 TOPOLOGY request; a key's node is then
 * one CRC16 and one array read away ({@link #nodeFor}). Immutable: a client that is told MOVED
 * fetches a new one.
 *
 * <p>Memory: 32 KiB for the table, whatever the cluster's size.
 */
public final class SlotPlacement {

    private final List<InetSocketAddress> nodes;
    private final short[] owner;

    private SlotPlacement(List<InetSocketAddress> nodes, short[] owner) {
        this.nodes = List.copyOf(nodes);
        this.owner = owner;
    }

    /**
     * The placement a TOPOLOGY reply describes. A slot in no range goes to node 0, which will
     * answer that no node serves it.
     *
     * @param topology the reply
     * @return the placement; its nodes in the order they first appear in the reply
     * @throws IllegalArgumentException if the reply names no node, or an address is not host:port
     */
    public static SlotPlacement of(Response.Topology topology) {
        List<String> addresses = new ArrayList<>();
        short[] owner = new short[HashSlots.SLOTS];
        for (Response.Shard shard : topology.shards()) {
            int index = addresses.indexOf(shard.address());
            if (index < 0) {
                index = addresses.size();
                addresses.add(shard.address());
            }
            Arrays.fill(owner, shard.first(), shard.last() + 1, (short) index);
        }
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("the cluster's map gives no slot to any node");
        }
        List<InetSocketAddress> nodes = new ArrayList<>();
        for (String address : addresses) {
            nodes.add(parse(address));
        }
        return new SlotPlacement(nodes, owner);
    }

    /**
     * Asks {@code node} for the cluster's map over a short-lived connection.
     *
     * @param node any node of the cluster
     * @param limits the client's limits
     * @param timeout for the connection and the reply
     * @return the placement
     * @throws IOException if the node cannot be reached, or is not a cluster node (an ERROR reply)
     */
    public static SlotPlacement fetch(
            InetSocketAddress node, ProtocolLimits limits, Duration timeout) throws IOException {
        try (KeyValueClient client = KeyValueClient.connect(node, limits, timeout)) {
            return of(topology(client, timeout));
        }
    }

    /** The TOPOLOGY reply of an open connection. */
    static Response.Topology topology(KeyValueClient client, Duration timeout) throws IOException {
        try {
            return client.send(
                            new Request.Topology(),
                            r -> {
                                if (r instanceof Response.Topology t) {
                                    return t;
                                }
                                throw new IllegalStateException(
                                        "unexpected reply to TOPOLOGY: " + r);
                            })
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no TOPOLOGY reply within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for TOPOLOGY", e);
        }
    }

    /** "host:port", as a cluster node writes its address. */
    static InetSocketAddress parse(String address) {
        int colon = address.lastIndexOf(':');
        try {
            return new InetSocketAddress(
                    address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not host:port: " + address, e);
        }
    }

    /**
     * The cluster's nodes, numbered as {@link #nodeFor} numbers them.
     *
     * @return the nodes' addresses
     */
    public List<InetSocketAddress> nodes() {
        return nodes;
    }

    /**
     * The node that serves a key: CRC16 of the key (or of its hash tag) modulo 16,384, then the
     * table.
     *
     * @param key the key's bytes
     * @return the node's number in {@link #nodes()}
     */
    public int nodeFor(byte[] key) {
        return owner[HashSlots.slot(key)];
    }
}
