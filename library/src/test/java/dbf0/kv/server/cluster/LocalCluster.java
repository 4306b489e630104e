package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.storage.wal.WalOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** N dbf0 cluster nodes in this JVM, on loopback ports picked free, each a nio server. */
final class LocalCluster implements AutoCloseable {

    final List<KeyValueServer> servers = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
    final List<ClusterNode> nodes;
    private final Path[] dataDirs;
    private final ProtocolLimits limits;
    private final ServerModel model;

    LocalCluster(int n) throws Exception {
        this(n, null, ProtocolLimits.DEFAULTS);
    }

    LocalCluster(int n, Path[] dataDirs) throws Exception {
        this(n, dataDirs, ProtocolLimits.DEFAULTS);
    }

    LocalCluster(int n, Path[] dataDirs, ProtocolLimits limits) throws Exception {
        this(n, dataDirs, limits, ServerModel.NIO);
    }

    /**
     * With {@code dataDirs[i]} as node i's data dir (a WAL and the nodes file), or none, and every
     * node on {@code model}.
     */
    LocalCluster(int n, Path[] dataDirs, ProtocolLimits limits, ServerModel model)
            throws Exception {
        this.dataDirs = dataDirs;
        this.limits = limits;
        this.model = model;
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int port = freePort();
            ports.add(port);
            list.append(i == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        nodes = ClusterNode.parseList(list.toString());
        for (int i = 0; i < n; i++) {
            servers.add(start(i));
        }
        awaitOk();
    }

    KeyValueServer start(int i) throws IOException {
        ServerOptions options =
                ServerOptions.defaults()
                        .withModel(model)
                        .withThreads(2)
                        .withLimits(limits)
                        .withBindAddress(new InetSocketAddress("127.0.0.1", ports.get(i)));
        if (dataDirs != null) {
            options = options.withDurability(WalOptions.defaults(dataDirs[i]));
        }
        KeyValueServer server = new KeyValueServer(options, MapBackends.create("concurrent"));
        server.clusterNodes(nodes);
        server.start();
        return server;
    }

    /** Stops node i and starts it again on its port. */
    void restart(int i) throws Exception {
        servers.get(i).close();
        servers.set(i, start(i));
        awaitOk();
    }

    /** Waits (at most 10 s) until every node knows every peer's id. */
    void awaitOk() throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (int port : ports) {
            while (true) {
                try (RawResp c = new RawResp(port)) {
                    if (c.text("CLUSTER", "INFO").contains("cluster_state:ok")) {
                        break;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("node on port " + port + " never reached state ok");
                }
                Thread.sleep(20);
            }
        }
    }

    int port(int i) {
        return ports.get(i);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (KeyValueServer server : servers) {
            server.close();
        }
    }
}
