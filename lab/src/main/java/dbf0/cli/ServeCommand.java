package dbf0.cli;

import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.common.cli.ErrorText;
import dbf0.kv.bench.options.ListenOptions;
import dbf0.kv.bench.options.MapOption;
import dbf0.kv.bench.options.ServerModelOption;
import dbf0.kv.bench.options.StoreCliOptions;
import dbf0.kv.bench.options.WalCliOptions;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.replication.RaftOptions;
import dbf0.kv.replication.RaftReplication;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.server.cluster.ClusterState;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The standalone server: serves until Ctrl-C or SIGTERM, then shuts down cleanly. It is what
 * clients on other hosts (the split Benchmark, the sweep's remote hosts) talk to. Its default model
 * is {@code nio}, which serves any number of connections (redis-benchmark opens 50); the seed's
 * pool is there with {@code --server-model pool}.
 *
 * <pre>java -jar target/dbf0.jar server --map concurrent --bind 127.0.0.1 --port 9000</pre>
 */
@Command(
        name = "server",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Serves a key/value store over TCP until Ctrl-C or SIGTERM: a map in memory, the same"
                    + " map with a write-ahead log (--data-dir), or an LSM tree or a B+tree on disk"
                    + " (--store lsm, --store btree).",
            "Each connection's first byte picks its protocol: v1 (the seed's), v2 (persistent,"
                + " pipelined, batched) or Redis's RESP (RESP2, or RESP3 after HELLO 3), so that"
                + " redis-cli, redis-benchmark and Redis client libraries work against it."
        },
        footer = {
            "",
            "Binds to loopback unless --bind says otherwise: to serve other hosts use "
                    + "--bind 0.0.0.0."
        })
public final class ServeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin MapOption map = new MapOption("concurrent");

    @Option(
            names = "--threads",
            defaultValue = "4",
            description =
                    "worker threads (event loops under nio); 1 = single-threaded "
                            + "(default: ${DEFAULT-VALUE})")
    int threads;

    @Mixin ListenOptions listen = new ListenOptions(9000, "--port");

    /** nio: a standalone server must serve any number of clients; the pool is bench's lesson. */
    @Mixin ServerModelOption serverModel = new ServerModelOption(ServerModel.NIO);

    @Option(
            names = "--max-connections",
            paramLabel = "N",
            description =
                    "connections beyond this many at once are closed on accept (default: what "
                            + "ulimit -n allows less 64 descriptors of headroom, at most 10000)")
    Integer maxConnections;

    @Option(
            names = "--inline",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "accept RESP inline commands, typed at a telnet prompt (default: on;"
                        + " --no-inline refuses them). Lines that look like HTTP always close the"
                        + " connection")
    boolean inline;

    @Option(
            names = "--backlog",
            defaultValue = "1024",
            paramLabel = "N",
            description =
                    "the kernel's queue of connections not yet accepted "
                            + "(default: ${DEFAULT-VALUE}; the seed used 50)")
    int backlog;

    @Option(
            names = {"--idle-timeout", "--read-timeout"},
            defaultValue = "30s",
            converter = Cli.DurationConverter.class,
            description =
                    "close a connection whose client sends nothing for this long "
                            + "(default: ${DEFAULT-VALUE})")
    Duration idleTimeout;

    @Mixin WalCliOptions wal;

    @Mixin StoreCliOptions store = new StoreCliOptions();

    @Option(
            names = "--cluster-nodes",
            paramLabel = "HOST:PORT,...",
            description =
                    "be one node of a Redis-protocol cluster of these nodes (every node gets the"
                            + " same list and finds itself by --bind/--port); the 16384 hash"
                            + " slots are split evenly in list order. With --data-dir the node"
                            + " keeps its id and slot map there")
    String clusterNodes;

    @Mixin ReplicationOptions replication = new ReplicationOptions();

    public static void main(String[] args) {
        Cli.runAndExit(new ServeCommand(), args);
    }

    /** The server's options as the parsed command line gives them; a bad value is a usage error. */
    ServerOptions serverOptions() {
        Cli.require(spec, threads >= 1, "--threads must be at least 1, got " + threads);
        InetSocketAddress address = listen.address(spec);
        ServerModel model = serverModel.model(spec);
        LsmOptions given = store.toLsmOptions(spec, wal, "--map");
        // Replicated, the shard's Raft log is the store's log; --fsync applies to that log.
        LsmOptions lsm = given != null && replication.replicated() ? given.withoutOwnLog() : given;
        BTreeOptions btree = store.toBTreeOptions(spec, wal, "--map");
        return Cli.parameter(
                spec,
                () ->
                        ServerOptions.defaults()
                                .withBindAddress(address)
                                .withModel(model)
                                .withThreads(threads)
                                .withMaxConnections(
                                        maxConnections != null
                                                ? maxConnections
                                                : ServerOptions.DEFAULT_MAX_CONNECTIONS)
                                .withIdleTimeout(idleTimeout)
                                .withBacklog(backlog)
                                .withInlineCommands(inline)
                                .withAsyncDiskReads(store.asyncDiskReads())
                                .withLsm(lsm)
                                .withBtree(btree)
                                .withDurability(
                                        lsm != null || btree != null || replication.replicated()
                                                ? null // the shard's Raft log is the log
                                                : wal.toWalOptions(spec)));
    }

    @Override
    public Integer call() throws Exception {
        ServerOptions options = serverOptions();
        ServerModel model = options.model();
        boolean disk = options.diskStore();
        String kind = options.lsm() != null ? "lsm" : "btree";
        String mapType = disk ? null : map.validated(spec);
        KeyValueServer server =
                disk
                        ? new KeyValueServer(options)
                        : Cli.parameter(
                                spec,
                                () -> new KeyValueServer(options, MapBackends.create(mapType)));
        if (clusterNodes != null) {
            List<ClusterNode> nodes =
                    Cli.parameter(spec, () -> ClusterNode.parseList(clusterNodes));
            Shards shards = replication.shards(spec, nodes);
            if (shards.replicated()) {
                Cli.require(
                        spec,
                        options.btree() == null,
                        "--cluster-replicas serves the map and lsm stores: the btree store is not"
                                + " replicated yet");
                RaftOptions raft = replication.raftOptions(spec, wal);
                int me =
                        Cli.parameter(
                                spec, () -> ClusterState.findSelf(nodes, options.bindAddress()));
                server.clusterNodes(
                        nodes,
                        shards,
                        new RaftReplication(
                                nodes, shards, me, options.bindAddress().getHostString(), raft),
                        raft.dataDir());
            } else {
                server.clusterNodes(nodes);
            }
        } else {
            Cli.require(
                    spec,
                    !replication.replicated(),
                    "--cluster-replicas needs --cluster-nodes: the nodes to group into shards");
        }
        // A taken port, a locked or damaged data dir, a node missing from --cluster-nodes: the
        // error line names it, and the exit status is 1.
        server.start();
        PrintWriter out = spec.commandLine().getOut();
        // What start-up replayed, then where it listens: the same two lines for either store.
        String recovered =
                server.lsmStore() != null
                        ? server.lsmStore().recovery().summary()
                        : server.btreeStore() != null
                                ? server.btreeStore().recovery().summary()
                                : server.walStore() != null
                                        ? server.walStore().recovery().summary()
                                        : null;
        if (recovered != null) {
            out.println("dbf0 server: " + recovered);
        }
        out.printf(
                "dbf0 server listening on %s (%s, %s model, %s); Ctrl-C to stop%n",
                ErrorText.address(server.getLocalAddress()),
                replication.replicated()
                        ? (options.lsm() != null
                                        ? "lsm store in " + options.lsm().dataDir()
                                        : "map " + mapType)
                                + replicated()
                        : serving(options, mapType),
                model.cliName(),
                Words.count(threads, "thread"));
        out.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            server.close();
                            out.printf(
                                    "dbf0 server stopped after %s (%,d dropped for errors); %s%n",
                                    Words.count(server.getConnectionsHandled(), "connection"),
                                    server.getConnectionsFailed(),
                                    disk
                                            ? kind + " store closed"
                                            : "map held "
                                                    + Words.count(
                                                            server.size(), "entry", "entries"));
                            out.flush();
                            stopped.countDown();
                        },
                        "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        // A server that failed as a whole (an event loop died) has closed itself: exit non-zero
        // rather than linger half alive.
        server.failure().thenRun(stopped::countDown);
        stopped.await();
        Throwable failure = server.failure().getNow(null);
        if (failure != null) {
            Cli.error(spec, "the server failed: " + ErrorText.of(failure));
            return Cli.EXIT_FAILURE;
        }
        return Cli.EXIT_OK;
    }

    /** The banner's word on replication: the shard, its copies and the Raft log. */
    private String replicated() {
        if (!replication.replicated()) {
            return "";
        }
        RaftOptions raft = replication.raftOptions(spec, wal);
        return ", "
                + Words.count(replication.replicas + 1, "copy", "copies")
                + " per shard through Raft (log in "
                + raft.dataDir().resolve("raft")
                + ", fsync "
                + raft.fsync().cliName()
                + ", reads "
                + raft.reads().name().toLowerCase(java.util.Locale.ROOT)
                + ")";
    }

    /** What the banner says the server serves: the map and its log, or the LSM store. */
    private static String serving(ServerOptions options, String mapType) {
        if (options.lsm() != null) {
            return "lsm store in "
                    + options.lsm().dataDir()
                    + ", fsync "
                    + options.lsm().fsync().cliName();
        }
        if (options.btree() != null) {
            return "btree store in "
                    + options.btree().dataDir()
                    + ", "
                    + options.btree().pageSize()
                    + "-byte pages, buffer pool "
                    + dbf0.common.ByteSizes.format(options.btree().bufferPoolBytes())
                    + ", fsync "
                    + options.btree().fsync().cliName();
        }
        if (options.durability() != null) {
            return "map "
                    + mapType
                    + ", write-ahead log in "
                    + options.durability().dataDir()
                    + ", fsync "
                    + options.durability().fsync().cliName();
        }
        return "map " + mapType + ", in memory only";
    }
}
