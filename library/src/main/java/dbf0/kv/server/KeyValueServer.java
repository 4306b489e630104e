package dbf0.kv.server;

import dbf0.base.server.ByteSession;
import dbf0.base.server.EventLoopServer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.server.cluster.ClusterState;
import dbf0.kv.server.cluster.Replication;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.btree.BTreeStore;
import dbf0.kv.storage.lsm.LsmStore;
import dbf0.kv.storage.wal.WalStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A key/value server over any {@link Store}, for instance any {@link Map} (wrapped in a {@link
 * MapStore}). The {@link ServerModel} chooses how connections get threads: the seed's pool and
 * virtual threads run {@link BlockingKeyValueServer}, where one v1 request reads top to bottom; the
 * event loop ({@code nio}) runs a {@link ProtocolSession} per connection.
 *
 * <p>The server adds no locking of its own: thread safety is entirely the store's. That is the
 * point of the seed's experiment: with a {@link java.util.HashMap} and several worker threads, keys
 * go missing (the race demo, {@code dbf0 race}, shows it).
 *
 * <pre>{@code
 * try (var server = new KeyValueServer(new InetSocketAddress("127.0.0.1", 0), 4,
 *     MapBackends.create("concurrent"))) {
 *   server.start();
 *   ... connect to server.getLocalAddress() ...
 * }
 * }</pre>
 */
public final class KeyValueServer implements Closeable {

    private final Store base;
    private final ServerOptions options;

    /**
     * The store sessions use: {@link #base}, or a WalStore over it when started with a data dir.
     */
    private volatile Store store;

    private WalStore walStore;
    private boolean ownsWalStore;

    /** The disk store opened on start when the options name one, closed after the connections. */
    private LsmStore lsmStore;

    private BTreeStore btreeStore;

    private ServerContext context;
    private BlockingKeyValueServer blocking;
    private EventLoopServer eventLoop;

    /** The {@code --cluster-nodes} list, or null for a standalone server. */
    private List<ClusterNode> clusterNodes;

    private Shards shards;
    private Replication replication;
    private Path nodesDir;

    /**
     * The seed's server: a pool of {@code nThreads}, one v1 operation per connection.
     *
     * @param bindAddress where to listen (port 0: any free port)
     * @param nThreads the pool's threads
     * @param map the data, shared by all connections
     */
    public KeyValueServer(
            InetSocketAddress bindAddress,
            int nThreads,
            Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        this(ServerOptions.defaults().withBindAddress(bindAddress).withThreads(nThreads), map);
    }

    /**
     * A server over {@code map}, each call on the store being one call on the map.
     *
     * @param options the model, address, threads and limits
     * @param map the data; it must be thread-safe unless the point is to watch it break
     */
    public KeyValueServer(ServerOptions options, Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        this(options, new MapStore(map));
    }

    /**
     * A server over {@code store}: sessions reach the data only through it.
     *
     * @param options the model, address, threads and limits
     * @param store the data
     */
    public KeyValueServer(ServerOptions options, Store store) {
        this.options = Objects.requireNonNull(options, "options");
        this.base = Objects.requireNonNull(store, "store");
        if (options.diskStore()) {
            throw new IllegalArgumentException(
                    "the options name a disk store: make the server without a store");
        }
        this.store = base;
        if (store instanceof WalStore given) {
            walStore = given; // INFO and BGREWRITEAOF see it; its owner closes it
        }
    }

    /**
     * A server over the disk store the options name ({@link ServerOptions#lsm()} or {@link
     * ServerOptions#btree()}): {@link #start()} opens it (recovering what its log and tables hold)
     * and {@link #close()} closes it.
     *
     * @param options the model, address, threads and limits, with {@code lsm} or {@code btree} set
     */
    public KeyValueServer(ServerOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        if (!options.diskStore()) {
            throw new IllegalArgumentException(
                    "no store: give a map, a store, or lsm or btree options");
        }
        this.base = null;
    }

    /**
     * The options this server was made with.
     *
     * @return the options given to the constructor
     */
    public ServerOptions getOptions() {
        return options;
    }

    /**
     * Makes this server one node of a cluster ({@code server --cluster-nodes}): it finds itself in
     * {@code nodes} by its bind address and port, serves its share of the 16,384 hash slots, and
     * redirects the rest (see {@link dbf0.kv.server.cluster}). Call before {@link #start()}; the
     * bind address needs a real port, not 0, since the list names it.
     *
     * @param nodes every node of the cluster, this one included, in the same order on every node
     */
    public synchronized void clusterNodes(List<ClusterNode> nodes) {
        clusterNodes(nodes, Shards.none(nodes.size()), null, null);
    }

    /**
     * As {@link #clusterNodes(List)}, with the nodes grouped into shards whose members keep copies
     * of each other's keys ({@code server --cluster-replicas}): {@code replication} carries this
     * node's writes to its shard's log, and the shard's leader serves its slots (see {@link
     * Replication}). The server's own store (a map, or the LSM store the options name) is what the
     * log's writes are applied to; the options must name no write-ahead log, since the shard's log
     * is one.
     *
     * @param nodes every node of the cluster, in the same order on every node
     * @param shards how they group into shards
     * @param replication the shard's consensus engine, or null when {@code shards} has no replicas
     * @param nodesDir where the cluster's nodes file is kept, or null for the options' data dir
     */
    public synchronized void clusterNodes(
            List<ClusterNode> nodes, Shards shards, Replication replication, Path nodesDir) {
        if (blocking != null || eventLoop != null) {
            throw new IllegalStateException("already started");
        }
        if (replication != null && options.durability() != null) {
            throw new IllegalArgumentException(
                    "a replicated shard keeps its writes in its Raft log: give no write-ahead log");
        }
        if (replication != null && options.lsm() != null && options.lsm().ownLog()) {
            throw new IllegalArgumentException(
                    "a replicated shard's lsm store keeps no log of its own: the Raft log is its"
                            + " log (LsmOptions.withoutOwnLog)");
        }
        clusterNodes = List.copyOf(nodes);
        this.shards = shards;
        this.replication = replication;
        this.nodesDir = nodesDir;
    }

    /** A connection's session on the event loop; the blocking models count their own. */
    private ByteSession newSession() {
        context.connectionsReceived.increment();
        return new ProtocolSession(context);
    }

    /**
     * Binds the address, opens the store the options name (replaying its log), and starts accepting
     * connections with the chosen server model; returns once the server is listening. The port
     * comes first: a taken one fails before a data directory is created, locked or replayed.
     *
     * @throws IOException if the address cannot be bound (the message names it), or the store
     *     cannot be opened (a missing parent of its directory, a lock held by another process, a
     *     damaged log)
     * @throws IllegalStateException if the server was already started
     */
    public synchronized void start() throws IOException {
        if (blocking != null || eventLoop != null) {
            throw new IllegalStateException("already started");
        }
        bindListener();
        try {
            openStore();
            listen();
        } catch (IOException | RuntimeException e) {
            if (context != null && context.cluster() != null) {
                context.cluster().close(); // stops asking the peers for their ids
            }
            if (walStore != null && ownsWalStore) {
                walStore.close(); // a server that never listened must not keep the data dir locked
            }
            closeLsm();
            closeListener();
            throw e;
        }
    }

    /** Binds the chosen model's listener; connections queue until {@link #listen()} starts it. */
    private void bindListener() throws IOException {
        switch (options.model()) {
            case POOL, VIRTUAL -> {
                BlockingKeyValueServer server =
                        new BlockingKeyValueServer(
                                "kv-" + options.model().cliName(),
                                options.bindAddress(),
                                options.threads());
                server.setVirtualThreads(options.model() == ServerModel.VIRTUAL);
                server.setIdleTimeout(options.idleTimeout());
                server.setMaxConnections(options.maxConnections());
                server.setBacklog(options.backlog());
                server.bind();
                blocking = server;
            }
            case NIO -> {
                EventLoopServer server =
                        new EventLoopServer(
                                "kv-nio",
                                options.bindAddress(),
                                options.threads(),
                                this::newSession,
                                options.maxConnections(),
                                options.idleTimeout());
                server.setBacklog(options.backlog());
                server.bind();
                eventLoop = server;
            }
        }
    }

    /** A listener that never served: closed, and the server not started after all. */
    private void closeListener() {
        if (blocking != null) {
            blocking.close();
            blocking = null;
        }
        if (eventLoop != null) {
            eventLoop.close();
            eventLoop = null;
        }
    }

    /** Opens the disk store or the log the options name; replays it before any connection. */
    private void openStore() throws IOException {
        if (options.lsm() != null) {
            if (!options.lsm().ownLog() && replication == null) {
                throw new IllegalStateException(
                        "an lsm store without a log of its own serves a replicated shard only:"
                                + " alone, its acknowledged writes would be lost at a restart");
            }
            lsmStore = LsmStore.open(options.lsm());
            store = lsmStore;
        } else if (options.btree() != null) {
            btreeStore = BTreeStore.open(options.btree());
            store = btreeStore;
        } else if (options.durability() != null) {
            if (walStore != null) {
                throw new IllegalStateException(
                        "a WalStore was given and the options ask for another");
            }
            ownsWalStore = true;
            walStore = WalStore.open(base, options.durability());
            store = walStore;
        }
    }

    private void listen() throws IOException {
        ClusterState cluster = null;
        if (clusterNodes != null) {
            Path dir =
                    nodesDir != null
                            ? nodesDir
                            : options.durability() == null ? null : options.durability().dataDir();
            cluster =
                    ClusterState.start(
                            clusterNodes, shards, options.bindAddress(), dir, store, replication);
        }
        // A cluster node's sessions write through its store, which indexes the keys by slot.
        context = new ServerContext(cluster == null ? store : cluster.store(), options, walStore);
        context.btreeStore(btreeStore);
        if (cluster != null) {
            context.cluster(cluster);
        }
        if (blocking != null) {
            blocking.serve(context);
            blocking.start();
        } else {
            eventLoop.start();
        }
        context.bound(getLocalAddress().getPort(), this::getOpenConnections);
    }

    /**
     * The write-ahead log's store when the options have a data dir and the server has started, else
     * null: its {@link WalStore#recovery()} says what start-up replayed.
     *
     * @return the WalStore, or null without a data dir
     */
    public WalStore walStore() {
        return walStore;
    }

    /**
     * The bound address; with port 0 this tells which port was chosen.
     *
     * @return the address the server listens on
     * @throws IllegalStateException if the server was not started
     */
    public InetSocketAddress getLocalAddress() {
        return blocking != null ? blocking.getLocalAddress() : running().getLocalAddress();
    }

    /**
     * Connections whose processing finished, successfully or not.
     *
     * @return the count since {@link #start()}
     */
    public long getConnectionsHandled() {
        return blocking != null
                ? blocking.getConnectionsHandled()
                : running().getConnectionsHandled();
    }

    /**
     * Connections dropped because of an error, a timeout or the connection limit (each logged
     * once).
     *
     * @return the count since {@link #start()}
     */
    public long getConnectionsFailed() {
        return blocking != null
                ? blocking.getConnectionsFailed()
                : running().getConnectionsFailed();
    }

    /**
     * Connections open right now.
     *
     * @return the count of accepted connections not yet closed
     */
    public int getOpenConnections() {
        return blocking != null ? blocking.getOpenConnections() : running().getOpenConnections();
    }

    private EventLoopServer running() {
        if (eventLoop == null) {
            throw new IllegalStateException("not started");
        }
        return eventLoop;
    }

    /**
     * Completes with the cause if the server fails as a whole (an event loop or the accept thread
     * died) and has shut itself down, or if it is a cluster node that may not go on (its
     * replication engine may not start: it stays up until closed); a failing connection never
     * completes it.
     *
     * @return a future that completes only on such a failure, with its cause
     */
    public CompletableFuture<Throwable> failure() {
        CompletableFuture<Throwable> model =
                blocking != null ? blocking.failure() : running().failure();
        ClusterState cluster = context == null ? null : context.cluster();
        if (cluster == null) {
            return model;
        }
        // A cluster node also fails when its replication engine may not start (MemberCheck).
        return CompletableFuture.anyOf(model, cluster.failure()).thenApply(Throwable.class::cast);
    }

    /**
     * The number of keys in the store (racy for a HashMap, like everything else about it).
     *
     * @return {@link Store#size()}
     */
    public int size() {
        Store s = store;
        return s == null ? 0 : s.size();
    }

    @Override
    public synchronized void close() {
        if (blocking != null) {
            blocking.close();
        }
        if (eventLoop != null) {
            eventLoop.close();
        }
        if (context != null && context.cluster() != null) {
            context.cluster().close();
        }
        if (walStore != null && ownsWalStore) {
            walStore.close(); // after the connections: their last writes are queued before the log
            // closes
        }
        closeLsm();
    }

    /**
     * The disk store when the options name one and the server has started, else null: its {@link
     * LsmStore#stats()} say what it holds and what it cost.
     *
     * @return the LSM store, or null
     */
    public LsmStore lsmStore() {
        return lsmStore;
    }

    /**
     * The B+tree store when the options name one and the server has started, else null: its {@link
     * BTreeStore#stats()} say what it holds.
     *
     * @return the B+tree store, or null
     */
    public BTreeStore btreeStore() {
        return btreeStore;
    }

    private void closeLsm() {
        if (btreeStore != null) {
            BTreeStore closing = btreeStore; // after the connections, like the log
            btreeStore = null;
            closing.close();
        }
        if (lsmStore != null) {
            Closeable closing = lsmStore; // after the connections, like the log: their writes first
            lsmStore = null;
            try {
                closing.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the lsm store: " + e.getMessage(), e);
            }
        }
    }
}
