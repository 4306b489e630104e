package dbf0.kv.server;

import dbf0.base.server.BaseServer;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.WalOptions;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How a {@link KeyValueServer} runs.
 *
 * @param bindAddress where to listen; loopback by default, port 0 picks a free port
 * @param model pool, virtual or nio
 * @param threads pool threads (pool), event loops (nio); unused by virtual
 * @param maxConnections connections beyond this many at once are closed on accept
 * @param idleTimeout a connection with no bytes from its client for this long is closed
 * @param limits protocol v2's maxima for keys, values, frames and batches
 * @param backlog the kernel's queue of connections not yet accepted; past it, a client's connection
 *     attempt is dropped and retried a second later (the seed used 50)
 * @param inlineCommands whether RESP inline commands (a line of words, as typed into telnet) are
 *     accepted; arrays, which every Redis tool sends, always are. Lines that look like HTTP close
 *     the connection either way (see {@link RespSession})
 * @param durability where and how to keep a write-ahead log of every write, or null for none (the
 *     default: the data lives only in memory). See {@link dbf0.kv.storage.wal.WalStore}
 * @param lsm the disk store to open and serve instead of the given map, or null to serve the map
 *     (the default). The server opens it on start and closes it on close; it keeps its own log, so
 *     {@code durability} must then be null
 * @param btree the B+tree store to open and serve instead of the given map, or null (the default);
 *     like {@code lsm}, and at most one of the two
 * @param asyncDiskReads on the event loop, read a store that {@linkplain
 *     dbf0.kv.storage.Store#mayWaitForDisk() may wait for a disk} through {@code getAsync}, so that
 *     one connection's cold key never stalls the loop's other connections (the default). Off, the
 *     loop reads with a plain {@code get}: the comparison's baseline, nothing else
 */
public record ServerOptions(
        InetSocketAddress bindAddress,
        ServerModel model,
        int threads,
        int maxConnections,
        Duration idleTimeout,
        ProtocolLimits limits,
        int backlog,
        boolean inlineCommands,
        WalOptions durability,
        LsmOptions lsm,
        BTreeOptions btree,
        boolean asyncDiskReads) {

    /** The cap on the default connection limit, whatever the file descriptor limit allows. */
    public static final int MAX_DEFAULT_CONNECTIONS = 10_000;

    /** File descriptors left for the JVM's own files (jars, logs, the listening socket...). */
    public static final int FD_HEADROOM = 64;

    /**
     * The default connection limit: what {@code ulimit -n} (the soft limit) allows after {@link
     * #FD_HEADROOM}, at most {@link #MAX_DEFAULT_CONNECTIONS}. A limit above the file descriptors
     * the process may open is no limit: accept fails with "Too many open files" first.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = defaultMaxConnections(maxFileDescriptors());

    /** The default idle timeout, the same for every server model. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = BaseServer.DEFAULT_IDLE_TIMEOUT;

    /** The default accept backlog: deep enough for bursts of short v1 connections. */
    public static final int DEFAULT_BACKLOG = 1024;

    /** The seed's ServerSocket backlog, which its write-heavy runs overflow. */
    public static final int SEED_BACKLOG = 50;

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException if threads, maxConnections or backlog is below 1, or the
     *     idle timeout is not positive
     */
    public ServerOptions {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException(
                    "maxConnections must be at least 1, got " + maxConnections);
        }
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog must be at least 1, got " + backlog);
        }
        if (idleTimeout.isZero() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
        }
        if (lsm != null && durability != null) {
            throw new IllegalArgumentException(
                    "the lsm store keeps its own log: give a write-ahead log (durability) only to"
                            + " a map store");
        }
        if (btree != null && durability != null) {
            throw new IllegalArgumentException(
                    "the btree store keeps its own log: give a write-ahead log (durability) only to"
                            + " a map store");
        }
        if (btree != null && lsm != null) {
            throw new IllegalArgumentException("serve one disk store: lsm or btree, not both");
        }
    }

    /** The process's soft limit on open file descriptors, or -1 where the JVM cannot tell. */
    static long maxFileDescriptors() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            return unix.getMaxFileDescriptorCount();
        }
        return -1;
    }

    static int defaultMaxConnections(long maxFds) {
        if (maxFds < 0) {
            return MAX_DEFAULT_CONNECTIONS;
        }
        return (int) Math.max(1, Math.min(MAX_DEFAULT_CONNECTIONS, maxFds - FD_HEADROOM));
    }

    /**
     * The seed's set-up: a pool of {@code threads} on loopback, any free port.
     *
     * @return the default options
     */
    public static ServerOptions defaults() {
        return new ServerOptions(
                new InetSocketAddress("127.0.0.1", 0),
                ServerModel.POOL,
                4,
                DEFAULT_MAX_CONNECTIONS,
                DEFAULT_IDLE_TIMEOUT,
                ProtocolLimits.DEFAULTS,
                DEFAULT_BACKLOG,
                true,
                null,
                null,
                null,
                true);
    }

    /**
     * These options with another bind address.
     *
     * @param address where to listen (port 0: any free port)
     * @return a copy of these options with that one changed
     */
    public ServerOptions withBindAddress(InetSocketAddress address) {
        return new ServerOptions(
                address,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with another server model.
     *
     * @param m the server model
     * @return a copy of these options with that one changed
     */
    public ServerOptions withModel(ServerModel m) {
        return new ServerOptions(
                bindAddress,
                m,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with another thread count.
     *
     * @param n pool threads or event loops, at least 1
     * @return a copy of these options with that one changed
     */
    public ServerOptions withThreads(int n) {
        return new ServerOptions(
                bindAddress,
                model,
                n,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with another connection limit.
     *
     * @param n the most connections open at once, at least 1
     * @return a copy of these options with that one changed
     */
    public ServerOptions withMaxConnections(int n) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                n,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with other protocol limits.
     *
     * @param l the protocol limits
     * @return a copy of these options with that one changed
     */
    public ServerOptions withLimits(ProtocolLimits l) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                l,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with another accept backlog.
     *
     * @param n the accept backlog, at least 1
     * @return a copy of these options with that one changed
     */
    public ServerOptions withBacklog(int n) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                n,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with another idle timeout.
     *
     * @param d the idle timeout, positive
     * @return a copy of these options with that one changed
     */
    public ServerOptions withIdleTimeout(Duration d) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                d,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * These options with inline commands on or off.
     *
     * @param on whether RESP inline commands are accepted
     * @return a copy of these options with that one changed
     */
    public ServerOptions withInlineCommands(boolean on) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                on,
                durability,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * With a write-ahead log under the map.
     *
     * @param wal the log's directory and fsync policy; null for none (nothing kept on disk)
     * @return a copy of these options with that one changed
     */
    public ServerOptions withDurability(WalOptions wal) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                wal,
                lsm,
                btree,
                asyncDiskReads);
    }

    /**
     * Serving the disk store instead of a map.
     *
     * @param options the LSM store's options; null to serve the map given to the server
     * @return a copy of these options with that one changed
     */
    public ServerOptions withLsm(LsmOptions options) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                options,
                btree,
                asyncDiskReads);
    }

    /**
     * With the B+tree store to serve instead of a map.
     *
     * @param options the B+tree store's options; null to serve the map given to the server
     * @return a copy of these options with that one changed
     */
    public ServerOptions withBtree(BTreeOptions options) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                options,
                asyncDiskReads);
    }

    /**
     * True if the server opens a disk store of its own (lsm or btree) rather than serve a map.
     *
     * @return whether {@code lsm} or {@code btree} is set
     */
    public boolean diskStore() {
        return lsm != null || btree != null;
    }

    /**
     * With the event loop's reads of a disk store off the loop (true, the default) or on it.
     *
     * @param on whether an event loop reads a disk store through {@code getAsync}
     * @return a copy of these options with that one changed
     */
    public ServerOptions withAsyncDiskReads(boolean on) {
        return new ServerOptions(
                bindAddress,
                model,
                threads,
                maxConnections,
                idleTimeout,
                limits,
                backlog,
                inlineCommands,
                durability,
                lsm,
                btree,
                on);
    }
}
