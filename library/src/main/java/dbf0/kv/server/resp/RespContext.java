package dbf0.kv.server.resp;

import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.btree.BTreeStore;
import dbf0.kv.storage.wal.WalStore;

/**
 * What a Redis command may see of the server: the store, the limits, and the few figures INFO and
 * CONFIG report. The server's {@code ServerContext} implements it; the interface lives here so that
 * this package needs nothing from {@code dbf0.kv.server}, which needs it (no cycle).
 */
public interface RespContext {

    /** The keys and values, shared with v1 and v2 sessions: commands go through it, never a map. */
    Store store();

    /** Key, value and frame maxima; a command's reply is bounded by {@code maxFrameBytes}. */
    ProtocolLimits limits();

    /** The server's connection limit (INFO's and CONFIG GET's maxclients). */
    int maxConnections();

    /** pool, virtual or nio, as the command line names it. */
    String serverModel();

    /** Pool threads or event loops, as configured. */
    int serverThreads();

    /** The port the server is bound to; 0 before it is. */
    int port();

    long uptimeSeconds();

    int openConnections();

    long totalConnectionsReceived();

    /** Commands run over RESP since the server started, this one included. */
    long totalCommandsProcessed();

    /** The write-ahead log under the store, or null when the server keeps nothing on disk. */
    WalStore walStore();

    /**
     * The B+tree store the server serves, or null (the default): BGREWRITEAOF vacuums it, and INFO
     * persistence shows its log and its vacuums.
     */
    default BTreeStore btreeStore() {
        return null;
    }

    /**
     * True if GET and MGET read through {@link Store#getAsync} and queue their replies while the
     * reads are out: an event loop over a store that may wait for a disk. False (the default), they
     * read with a plain {@link Store#get}.
     *
     * @return whether reads go off the session's thread
     */
    default boolean asyncReads() {
        return false;
    }

    /**
     * The lines of INFO's replication section, for a node whose shard keeps copies; null (the
     * default) for a server without replicas, which INFO shows as a master with none.
     */
    default String replicationInfo() {
        return null;
    }

    /** Routes keys to the nodes of a cluster; null for a standalone server, the default. */
    default KeyRouter router() {
        return null;
    }
}
