package dbf0.kv.server;

import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.server.cluster.ClusterState;
import dbf0.kv.server.resp.KeyRouter;
import dbf0.kv.server.resp.RespCommands;
import dbf0.kv.server.resp.RespContext;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.btree.BTreeStore;
import dbf0.kv.storage.wal.WalStore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * What every connection's session shares: the store, the limits, and the few server-wide figures
 * that commands like Redis's INFO report. The Redis commands see it as a {@link RespContext}.
 */
final class ServerContext implements RespContext {

    final Store store;
    final ProtocolLimits limits;
    final ServerOptions options;

    /**
     * The store again when it keeps a write-ahead log (INFO persistence, BGREWRITEAOF), else null.
     */
    final WalStore walStore;

    /**
     * Whether sessions read through {@link Store#getAsync}: on an event loop, over a store that may
     * wait for a disk, unless the options turn it off. A thread per connection may block on its own
     * read, so the blocking models read with a plain get.
     */
    final boolean asyncReads;

    final long startNanos = System.nanoTime();
    final LongAdder commandsProcessed = new LongAdder();
    final LongAdder connectionsReceived = new LongAdder();
    private final AtomicLong clientIds = new AtomicLong();
    private volatile IntSupplier openConnections = () -> 0;
    private volatile int port;

    /** This node's part of a cluster, or null for a standalone server (the default). */
    private ClusterState cluster;

    /** The RESP commands: the standard ones, and a cluster node's own. */
    private RespCommands commands = RespCommands.standard();

    ServerContext(Store store, ServerOptions options) {
        this(store, options, null);
    }

    /** The B+tree store served, or null; set before the server listens. */
    private volatile BTreeStore btreeStore;

    ServerContext(Store store, ServerOptions options, WalStore walStore) {
        this.store = store;
        this.walStore = walStore;
        this.options = options;
        this.limits = options.limits();
        this.asyncReads =
                options.asyncDiskReads()
                        && options.model() == ServerModel.NIO
                        && store.mayWaitForDisk();
    }

    /**
     * A RESP connection's id (CLIENT ID, HELLO): 1, 2, 3, ... in the order sessions start, as in
     * Redis.
     */
    long nextClientId() {
        return clientIds.incrementAndGet();
    }

    /** Makes this server a cluster node; called before the first connection is accepted. */
    void cluster(ClusterState state) {
        cluster = state;
        commands = RespCommands.standard().plus(state.commands());
    }

    ClusterState cluster() {
        return cluster;
    }

    RespCommands commands() {
        return commands;
    }

    @Override
    public String replicationInfo() {
        return cluster == null ? null : cluster.replicationInfo();
    }

    @Override
    public KeyRouter router() {
        return cluster == null ? null : cluster.router();
    }

    void bound(int boundPort, IntSupplier open) {
        this.port = boundPort;
        this.openConnections = open;
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public ProtocolLimits limits() {
        return limits;
    }

    @Override
    public int maxConnections() {
        return options.maxConnections();
    }

    @Override
    public String serverModel() {
        return options.model().cliName();
    }

    @Override
    public int serverThreads() {
        return options.threads();
    }

    @Override
    public int openConnections() {
        return openConnections.getAsInt();
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long uptimeSeconds() {
        return (System.nanoTime() - startNanos) / 1_000_000_000L;
    }

    @Override
    public long totalConnectionsReceived() {
        return connectionsReceived.sum();
    }

    @Override
    public long totalCommandsProcessed() {
        return commandsProcessed.sum();
    }

    @Override
    public WalStore walStore() {
        return walStore;
    }

    @Override
    public BTreeStore btreeStore() {
        return btreeStore;
    }

    void btreeStore(BTreeStore store) {
        this.btreeStore = store;
    }

    @Override
    public boolean asyncReads() {
        return asyncReads;
    }
}
