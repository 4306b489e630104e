package dbf0.kv.client;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Spreads keys over several dbf0 servers, one {@link KeyValueClient} (one connection) per server.
 * Each key lives on exactly one server, chosen from the key's bytes alone, so every client given
 * the same server list in the same order agrees where a key is, without talking to each other.
 *
 * <pre>{@code
 * try (ShardedKeyValueClient kv = ShardedKeyValueClient.connect(List.of(a, b, c))) {
 *   kv.set(key, value);              // goes to server shardFor(key)
 *   ByteArrayWrapper v = kv.get(key);
 *   List<Response> r = kv.batch(ops); // split by server, replies back in the order of ops
 * }
 * }</pre>
 *
 * <p><b>Placement: jump consistent hash.</b> A key's bytes are hashed to 64 bits by {@link
 * #hashKey} (FNV-1a, then a finaliser that mixes every input bit into the high bits), and {@link
 * #jumpHash} (Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm", 2014) maps
 * that to a server number. It was chosen over rendezvous (highest random weight) hashing because
 * servers here are a numbered list given on a command line, which is exactly the case jump hash is
 * made for, and there it is better on every count that matters to a load generator: no table and no
 * per-server state, O(log n) steps per key instead of n hashes, and keys spread evenly over the
 * servers. Like rendezvous hashing it moves only about 1/n of the keys when an n-th server is added
 * at the end of the list, all of them to the new server. Its limit: removing a server other than
 * the last renumbers the ones after it and moves far more keys; a system that loses servers from
 * the middle would want rendezvous hashing or a level of indirection (virtual buckets) instead.
 *
 * <p><b>Order.</b> Operations on one key always go to the same server over the same connection, so
 * they keep the order of each {@link KeyValueClient}: one thread's requests to one server are
 * applied in the order it made them. Operations on keys on different servers have no order between
 * them: a SET to one server may be applied after a later SET to another.
 *
 * <p><b>Pipelining and batching.</b> The {@code ...Async} methods return as soon as the request is
 * written to its server, exactly as {@link KeyValueClient}'s do. A batch is split by server (each
 * part keeps the caller's relative order), the parts go out at once, and the replies are put back
 * in the caller's order. A batch is atomic per server at most: when one server refuses its part,
 * the others may already have applied theirs, and the whole call fails.
 *
 * <p><b>Cluster mode.</b> {@link #connectCluster} asks one dbf0 cluster node for the slot map (a v2
 * TOPOLOGY request) and places each key as Redis Cluster does: CRC16 of the key, or of its {@code
 * {hash tag}}, modulo 16,384, and the node that serves that slot ({@link SlotPlacement}). A node
 * answers MOVED for a key it does not serve; the client then fetches the map again from that node,
 * reconnects where needed, and sends the request again, up to {@value #MAX_MOVES} times.
 *
 * <p><b>Threads and failures.</b> As for {@link KeyValueClient}: every method may be called from
 * any thread; failures are those of the server the request went to.
 */
public final class ShardedKeyValueClient implements AutoCloseable {

    /** How many MOVED replies one request follows before it fails. */
    public static final int MAX_MOVES = 5;

    /** Where each key goes now; replaced whole when a cluster's map changes. */
    private volatile ShardRouting routing;

    private final Duration timeout;

    /** Cluster mode: every connection made, by node address (kept across new maps); else null. */
    private final Map<InetSocketAddress, KeyValueClient> open;

    private final ProtocolLimits limits;

    /**
     * Takes ownership of already connected clients: closing this client closes them.
     *
     * @param shards one client per server, in the order that numbers the servers; not empty
     * @param timeout how long the blocking methods wait for a reply
     */
    public ShardedKeyValueClient(List<KeyValueClient> shards, Duration timeout) {
        checkArgument(!shards.isEmpty(), "at least one server is needed");
        this.routing = new ShardRouting(List.copyOf(shards), null);
        this.timeout = timeout;
        this.open = null;
        this.limits = null;
    }

    private ShardedKeyValueClient(ProtocolLimits limits, Duration timeout) {
        this.timeout = timeout;
        this.open = new HashMap<>();
        this.limits = limits;
    }

    /**
     * Connects to a dbf0 cluster through any one of its nodes: asks it for the slot map, then
     * connects to every node the map names.
     *
     * @param node any node of the cluster ({@code server --cluster-nodes})
     * @param limits the largest keys and values this client will send
     * @param timeout how long to wait for each connection, and for each reply in the blocking calls
     * @return a connected client; close it when done
     * @throws IOException if a node cannot be reached, or {@code node} is not a cluster node
     */
    public static ShardedKeyValueClient connectCluster(
            InetSocketAddress node, ProtocolLimits limits, Duration timeout) throws IOException {
        ShardedKeyValueClient client = new ShardedKeyValueClient(limits, timeout);
        try {
            client.follow(SlotPlacement.fetch(node, limits, timeout));
            return client;
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Routes by {@code slots} from now on, connecting to the nodes not yet connected. */
    private synchronized void follow(SlotPlacement slots) throws IOException {
        List<KeyValueClient> shards = new ArrayList<>();
        for (InetSocketAddress node : slots.nodes()) {
            KeyValueClient client = open.get(node);
            if (client == null) {
                client = KeyValueClient.connect(node, limits, timeout);
                open.put(node, client);
            }
            shards.add(client);
        }
        routing = new ShardRouting(List.copyOf(shards), slots);
    }

    /**
     * Sends with {@code send}; in cluster mode, a MOVED reply fetches the map again from the node
     * it names and sends once more, at most {@code movesLeft} times.
     */
    private <T> CompletableFuture<T> routed(Supplier<CompletableFuture<T>> send, int movesLeft) {
        CompletableFuture<T> sent = send.get();
        if (open == null) {
            return sent; // a hand-given list: no node redirects
        }
        return sent.exceptionallyCompose(
                e -> {
                    Throwable cause = e instanceof CompletionException ? e.getCause() : e;
                    if (!(cause instanceof MovedException moved) || movesLeft == 0) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    try {
                        follow(
                                SlotPlacement.fetch(
                                        SlotPlacement.parse(moved.address()), limits, timeout));
                    } catch (IOException | RuntimeException io) {
                        return CompletableFuture.failedFuture(io);
                    }
                    return routed(send, movesLeft - 1);
                });
    }

    /**
     * Connects to every server with the default limits and a 10 s timeout.
     *
     * @param servers the servers, in the order that numbers them (keep it the same everywhere)
     * @return a connected client; close it when done
     * @throws IOException if any connection cannot be made (the ones already made are closed)
     */
    public static ShardedKeyValueClient connect(List<InetSocketAddress> servers)
            throws IOException {
        return connect(servers, ProtocolLimits.DEFAULTS, Duration.ofSeconds(10));
    }

    /**
     * Connects to every server with the given limits and timeout.
     *
     * @param servers the servers, in the order that numbers them (keep it the same everywhere)
     * @param limits the largest keys and values this client will send
     * @param timeout how long to wait for each connection, and for each reply in the blocking calls
     * @return a connected client; close it when done
     * @throws IOException if any connection cannot be made (the ones already made are closed)
     */
    public static ShardedKeyValueClient connect(
            List<InetSocketAddress> servers, ProtocolLimits limits, Duration timeout)
            throws IOException {
        List<KeyValueClient> clients = new ArrayList<>();
        try {
            for (InetSocketAddress server : servers) {
                clients.add(KeyValueClient.connect(server, limits, timeout));
            }
            return new ShardedKeyValueClient(clients, timeout);
        } catch (IOException | RuntimeException e) {
            clients.forEach(KeyValueClient::close);
            throw e;
        }
    }

    /**
     * How many servers the keys are spread over.
     *
     * @return the number of servers
     */
    public int shardCount() {
        return routing.shards().size();
    }

    /**
     * The server a key lives on.
     *
     * @param key the key
     * @return its server's number, 0 to {@link #shardCount()} - 1
     */
    public int shardFor(ByteArrayWrapper key) {
        return routing.shardFor(key);
    }

    /**
     * The server a key lives on among {@code servers} servers: the same answer in every process.
     *
     * @param key the key
     * @param servers how many servers there are, at least 1
     * @return the server's number, 0 to {@code servers - 1}
     */
    public static int shardFor(ByteArrayWrapper key, int servers) {
        // jump hash puts every key in bucket 0 of 1, so one server needs no hash
        return servers == 1 ? 0 : jumpHash(hashKey(key.getArray()), servers);
    }

    /**
     * A fixed 64-bit hash of a key's bytes. Placement must never change between versions or
     * processes, so this is written out here rather than taken from {@link Object#hashCode()} (32
     * bits, and free to change) or a library. FNV-1a (from its standard 64-bit offset basis, which
     * acts as the fixed seed) reads every byte; FNV's low bits mix well but its high bits depend
     * weakly on the last bytes, and jump hash draws on the high bits, so the result goes through
     * MurmurHash3's 64-bit finaliser (two xor-shift-multiply rounds), which makes every output bit
     * depend on every input bit.
     *
     * @param key the key's bytes
     * @return the 64-bit hash
     */
    public static long hashKey(byte[] key) {
        long h = 0xcbf29ce484222325L; // FNV-1a 64-bit offset basis
        for (byte b : key) {
            h ^= b & 0xff;
            h *= 0x100000001b3L; // FNV 64-bit prime
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /**
     * Jump consistent hash (Lamping and Veach, 2014): the bucket, 0 to {@code buckets - 1}, of a
     * 64-bit key. Think of the key as seeding a random walk over bucket counts 1, 2, 3, ...: at
     * each count n the key stays where it is with probability (n-1)/n and jumps to the new bucket
     * n-1 otherwise. The walk skips straight from one jump to the next (a linear congruential step
     * draws the next random number, and the gap to the next jump follows from it), so it takes
     * about ln(buckets) steps. Growing from n to n+1 buckets moves a key only if the walk jumps at
     * n+1, which happens for 1/(n+1) of the keys, and only into the new bucket.
     *
     * @param key a well-mixed 64-bit key (see {@link #hashKey})
     * @param buckets the number of buckets, at least 1
     * @return the bucket
     */
    public static int jumpHash(long key, int buckets) {
        checkArgument(buckets >= 1, "buckets must be at least 1, got %s", buckets);
        long bucket = -1;
        long next = 0;
        while (next < buckets) {
            bucket = next;
            key = key * 2862933555777941757L + 1; // the paper's 64-bit LCG step
            // next jump: (bucket + 1) / u for u uniform in (0, 1], u taken from the top 31 bits
            next = (long) ((bucket + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) bucket;
    }

    /**
     * Reads one key from its server, waiting up to the timeout.
     *
     * @param key the key
     * @return the value, or null if there is none
     * @throws IOException as {@link KeyValueClient#get} does
     */
    public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
        return await(getAsync(key));
    }

    /**
     * Stores a value on the key's server; returns once that server has applied it.
     *
     * @param key the key
     * @param value the value
     * @throws IOException as {@link KeyValueClient#set} does
     */
    public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
        await(setAsync(key, value));
    }

    /**
     * Removes a key from its server.
     *
     * @param key the key
     * @return true if the key was there
     * @throws IOException as {@link KeyValueClient#delete} does
     */
    public boolean delete(ByteArrayWrapper key) throws IOException {
        return await(deleteAsync(key));
    }

    /**
     * One round trip to every server at once.
     *
     * @throws IOException if any server does not answer in time, or its connection is closed
     */
    public void ping() throws IOException {
        for (KeyValueClient shard : routing.shards()) {
            shard.ping();
        }
    }

    /**
     * Sends a batch split by server and waits for every part.
     *
     * @param ops the operations (GET, SET, DELETE)
     * @return one reply per operation, in the order of {@code ops}
     * @throws IOException as {@link KeyValueClient#batch} does, for any server's part
     */
    public List<Response> batch(List<Request> ops) throws IOException {
        return await(batchAsync(ops));
    }

    /**
     * Sends a GET to the key's server without waiting for the reply.
     *
     * @param key the key
     * @return a future completed with the value, or with null if there is none
     */
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        return routed(() -> routing.shard(key).getAsync(key), MAX_MOVES);
    }

    /**
     * Sends a SET to the key's server without waiting for the reply.
     *
     * @param key the key
     * @param value the value
     * @return a future completed with null once the server has applied the SET
     */
    public CompletableFuture<Void> setAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return routed(() -> routing.shard(key).setAsync(key, value), MAX_MOVES);
    }

    /**
     * Sends a DELETE to the key's server without waiting for the reply.
     *
     * @param key the key
     * @return a future completed with true if the key was there
     */
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        return routed(() -> routing.shard(key).deleteAsync(key), MAX_MOVES);
    }

    /**
     * Splits a batch by server, sends every part without waiting, and puts the replies back in the
     * caller's order. A server whose part is empty is not sent anything.
     *
     * @param ops the operations (GET, SET, DELETE)
     * @return a future completed with one reply per operation in the order of {@code ops}; failed
     *     if any server's part fails (the other parts may have been applied)
     */
    public CompletableFuture<List<Response>> batchAsync(List<Request> ops) {
        return routed(() -> ShardedBatch.send(routing, ops), MAX_MOVES);
    }

    private <T> T await(CompletableFuture<T> future) throws IOException {
        return BlockingCalls.await(future, timeout);
    }

    /**
     * Closes every server's connection; requests still waiting fail as {@link
     * KeyValueClient#close()} says.
     */
    @Override
    public void close() {
        if (open != null) {
            synchronized (this) {
                open.values().forEach(KeyValueClient::close);
            }
        } else {
            routing.shards().forEach(KeyValueClient::close);
        }
    }
}
