package dbf0.kv.bench;

import dbf0.base.client.BaseClient;
import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.ByteSizes;
import dbf0.common.Words;
import dbf0.common.cli.ErrorText;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalStats;
import dbf0.kv.workload.KeySpace;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One benchmark run, phase by phase: start the server (unless connecting elsewhere), load the
 * records of a keyed workload, start the client's connectors, warm up, measure for the duration,
 * stop the connectors (each lets its last replies arrive) and add up what they counted.
 */
final class BenchmarkRun {

    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkRun.class);

    /** How long the check that a --connect server is there waits to connect, then for PONG. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private BenchmarkRun() {}

    /**
     * See {@link Benchmark#run(BenchmarkConfig, HistoryRecorder, int, WalOptions)}; with {@code
     * lsm} or {@code btree} (not null) the server serves that disk store instead of the map, and
     * {@code asyncDiskReads} says whether its event loops read it off the loop.
     */
    static BenchmarkResult run(
            BenchmarkConfig config,
            HistoryRecorder history,
            int historyKeys,
            WalOptions wal,
            LsmOptions lsm,
            BTreeOptions btree,
            boolean asyncDiskReads)
            throws IOException, InterruptedException {
        LoadPhase load =
                config.keyed() == null
                        ? null
                        : new LoadPhase(config.keyed(), history, config.clientThreads());
        KeyValueServer server = null;
        InetSocketAddress address = config.connectTo();
        if (address != null && config.slots() == null) { // --cluster has asked its node already
            reachable(config.shards().isEmpty() ? List.of(address) : config.shards());
        }
        if (address == null && (lsm != null || btree != null)) {
            server =
                    new KeyValueServer(
                            serverOptions(config, null)
                                    .withLsm(lsm)
                                    .withBtree(btree)
                                    .withAsyncDiskReads(asyncDiskReads));
            server.start();
            if (load != null) {
                load.throughLog(lsm != null ? server.lsmStore() : server.btreeStore());
            }
            address = server.getLocalAddress();
        } else if (address == null) {
            Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create(config.mapType());
            if (load != null && wal == null) {
                load.intoMap(map);
            }
            server = new KeyValueServer(serverOptions(config, wal), map);
            server.start();
            if (load != null && wal != null) {
                load.throughLog(server.walStore());
            }
            address = server.getLocalAddress();
        } else if (load != null) {
            load.overV2(config.shards().isEmpty() ? List.of(address) : config.shards());
        }
        try {
            String disk = lsm != null ? "the lsm store" : btree != null ? "the btree store" : null;
            LOG.info("bench: {}", setup(config, disk, server, address));
            KeySpace space = config.keyed() == null ? null : new KeySpace(config.keyed().records());
            BaseClient<BaseConnector> client =
                    new ConnectorFactory(config, address, space, history, historyKeys).client();
            return measure(config, client, server);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * The run in one line: the server bench started (its model, threads and store), or the one it
     * connects to; then the clients and the operations.
     */
    private static String setup(
            BenchmarkConfig config, String disk, KeyValueServer server, InetSocketAddress address) {
        String where =
                server == null
                        ? "against " + ErrorText.address(address)
                        : String.format(
                                "against a %s server here on %s (%s, %s)",
                                config.serverModel().cliName(),
                                ErrorText.address(address),
                                Words.count(config.serverThreads(), "thread"),
                                disk != null ? disk : "map " + config.mapType());
        return String.format(
                Locale.ROOT,
                "%s (%s, %s) %s; %s keys, %s values, setFrac %s, %s s",
                Words.count(config.clientThreads(), "client thread"),
                config.clientThreadKind().cliName(),
                config.clientMode().cliName(),
                where,
                ByteSizes.format(config.keyLength()),
                ByteSizes.format(config.valueLength()),
                config.setFraction(),
                config.duration().toMillis() / 1000.0);
    }

    /**
     * Nothing listening at {@code --connect} fails here, in one line that names the address, before
     * the clients start: they would each fail every operation for the whole run.
     */
    private static void reachable(List<InetSocketAddress> servers) throws IOException {
        for (InetSocketAddress server : servers) {
            String where = ErrorText.address(server);
            KeyValueClient client;
            try {
                client = KeyValueClient.connect(server, ProtocolLimits.DEFAULTS, PROBE_TIMEOUT);
            } catch (IOException e) {
                throw new IOException("cannot connect to " + where + ": " + ErrorText.of(e), e);
            }
            try (client) {
                client.ping();
            } catch (IOException e) {
                throw new IOException(
                        where
                                + " did not answer a v2 PING (is it a dbf0 server?): "
                                + ErrorText.of(e),
                        e);
            }
        }
    }

    private static ServerOptions serverOptions(BenchmarkConfig config, WalOptions wal) {
        return ServerOptions.defaults()
                .withBindAddress(new InetSocketAddress(config.bindHost(), config.port()))
                .withModel(config.serverModel())
                .withThreads(config.serverThreads())
                .withMaxConnections(
                        Math.max(ServerOptions.DEFAULT_MAX_CONNECTIONS, 2 * config.clientThreads()))
                .withBacklog(config.backlog())
                .withDurability(wal);
    }

    /** Warm-up, the measured interval, then stop: the phases the clients run through. */
    private static BenchmarkResult measure(
            BenchmarkConfig config, BaseClient<BaseConnector> client, KeyValueServer server)
            throws InterruptedException {
        // A recorder counts everything until told where the interval starts, so the warm-up's
        // operations must be excluded before the clients start, not only once it is over.
        client.measureFrom(Long.MAX_VALUE);
        client.start(config.clientThreadKind().builder());
        if (!config.warmup().isZero()) {
            Thread.sleep(config.warmup());
        }
        // the log's counters at the start of the measured interval: the JSON reports that interval
        WalStats logBefore =
                server != null && server.walStore() != null ? server.walStore().stats() : null;
        long start = System.nanoTime();
        ProcessCpu cpu = ProcessCpu.start();
        client.measureFrom(start);
        try {
            Thread.sleep(config.duration());
        } finally {
            client.stopAndJoin();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = cpu.seconds();
        LogActivity log = null;
        if (logBefore != null) {
            var p = server.walStore().stats();
            log = LogActivity.between(logBefore, p);
            LOG.info(
                    "bench: log fsync {}: {}, {}, {} records per fsync, {}",
                    p.policy().cliName(),
                    Words.count(p.recordsWritten(), "record"),
                    Words.count(p.fsyncs(), "fsync"),
                    String.format("%.1f", p.recordsPerFsync()),
                    ByteSizes.format(p.logBytes()));
        }
        return new BenchmarkResult(
                client.totalStats(),
                seconds,
                client.totalErrors(),
                client.totalLatencies(),
                config,
                log,
                cpuSeconds);
    }
}
