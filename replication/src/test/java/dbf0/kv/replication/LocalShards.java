package dbf0.kv.replication;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.server.cluster.RawResp;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.storage.lsm.LsmOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A replicated cluster in this JVM: N nodes on loopback, each a nio server over a concurrent map
 * (or, given LSM options, the LSM store without a log of its own) with its own data dir, grouped
 * into shards of R+1 with Raft on ports picked free.
 */
final class LocalShards implements AutoCloseable {

    final List<KeyValueServer> servers = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
    final List<RaftReplication> engines = new ArrayList<>();
    final List<ClusterNode> nodes;
    final Shards shards;
    final int offset;
    private final Path root;
    private final UnaryOperator<RaftOptions> tune;
    private final UnaryOperator<LsmOptions> lsm;

    /**
     * Elections after 1-2 s without a heartbeat: a test JVM beside others on two cores can stall
     * for a few hundred milliseconds, which the default 300-600 ms would take for a dead leader.
     */
    static final UnaryOperator<RaftOptions> PATIENT =
            o -> o.withElection(Duration.ofSeconds(1), Duration.ofSeconds(2));

    LocalShards(int n, int replicas, Path root) throws Exception {
        this(n, replicas, root, PATIENT);
    }

    LocalShards(int n, int replicas, Path root, UnaryOperator<RaftOptions> tune) throws Exception {
        this(n, replicas, root, tune, null);
    }

    /**
     * @param lsm null for a map; else each node runs the LSM store in its data dir with these
     *     options (applied to the defaults, without a log of its own)
     */
    LocalShards(
            int n,
            int replicas,
            Path root,
            UnaryOperator<RaftOptions> tune,
            UnaryOperator<LsmOptions> lsm)
            throws Exception {
        this.root = root;
        this.tune = tune;
        this.lsm = lsm;
        this.shards = new Shards(n, replicas);
        this.offset = 1000;
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int port = freePortPair(offset);
            ports.add(port);
            list.append(i == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        nodes = ClusterNode.parseList(list.toString());
        for (int i = 0; i < n; i++) {
            servers.add(null);
            engines.add(null);
        }
        for (int i = 0; i < n; i++) {
            servers.set(i, start(i));
        }
    }

    Path dataDir(int i) {
        return root.resolve("node" + i);
    }

    KeyValueServer start(int i) throws IOException {
        Files.createDirectories(dataDir(i));
        ServerOptions options =
                ServerOptions.defaults()
                        .withModel(ServerModel.NIO)
                        .withThreads(2)
                        .withBindAddress(new InetSocketAddress("127.0.0.1", ports.get(i)));
        RaftOptions raft = tune.apply(RaftOptions.defaults(dataDir(i)).withRaftPortOffset(offset));
        KeyValueServer server;
        if (lsm == null) {
            server = new KeyValueServer(options, MapBackends.create("concurrent"));
        } else {
            LsmOptions store = lsm.apply(LsmOptions.defaults(dataDir(i))).withoutOwnLog();
            server = new KeyValueServer(options.withLsm(store));
        }
        RaftReplication engine = new RaftReplication(nodes, shards, i, "127.0.0.1", raft);
        engines.set(i, engine);
        server.clusterNodes(nodes, shards, engine, dataDir(i));
        server.start();
        return server;
    }

    void stop(int i) {
        servers.get(i).close();
    }

    void restart(int i) throws IOException {
        servers.set(i, start(i));
    }

    /**
     * Runs a command on the shard's leader as a cluster client would: follows MOVED, and tries
     * again after TRYAGAIN or CLUSTERDOWN (an election), for up to 20 s.
     */
    String onLeader(int shard, String... command) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int node = awaitLeader(shard, Duration.ofSeconds(20));
        while (true) {
            String reply;
            try (RawResp c = new RawResp(ports.get(node))) {
                reply = c.call(command);
            } catch (IOException e) {
                reply = "-TRYAGAIN " + e;
            }
            boolean again = reply.startsWith("-TRYAGAIN") || reply.startsWith("-CLUSTERDOWN");
            if (reply.startsWith("-MOVED")) {
                int port = Integer.parseInt(reply.substring(reply.lastIndexOf(':') + 1).strip());
                node = ports.indexOf(port);
                again = true;
            }
            if (!again || System.nanoTime() > deadline) {
                return reply;
            }
            Thread.sleep(50);
            if (reply.startsWith("-TRYAGAIN") || reply.startsWith("-CLUSTERDOWN")) {
                node = awaitLeader(shard, Duration.ofSeconds(20));
            }
        }
    }

    /** The node that says it leads shard {@code shard}, once one does (within {@code within}). */
    int awaitLeader(int shard, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i : shards.members(shard)) {
                try (RawResp c = new RawResp(ports.get(i))) {
                    if (c.text("DBF0-ROLE").startsWith("leader")) {
                        return i;
                    }
                } catch (IOException e) {
                    // stopped, or not up yet
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no leader of shard " + shard + " within " + within);
    }

    static int freePortPair(int offset) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            if (port + offset > 65_535) {
                continue;
            }
            try (ServerSocket a = new ServerSocket(port);
                    ServerSocket b = new ServerSocket(port + offset)) {
                if (a.isBound() && b.isBound()) {
                    return port;
                }
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free pair of ports " + offset + " apart");
    }

    @Override
    public void close() {
        for (KeyValueServer s : servers) {
            if (s != null) {
                s.close();
            }
        }
    }
}
