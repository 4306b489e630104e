package dbf0.kv.bench;

import dbf0.base.client.BaseClient;
import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.workload.KeySpace;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyValueTracker;
import dbf0.kv.workload.RandomKeyValueSource;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Builds a run's client: one connector per client thread, of the kind the client mode asks for.
 *
 * <ul>
 *   <li>per-op (v1, the seed's): {@link KeyValueConnector}, a new connection per operation;
 *   <li>persistent, pipelined, batched (v2): {@link V2Connector}, one connection each;
 *   <li>with {@code --selector-threads N}: N {@link SelectorConnector}s share the connections;
 *   <li>with several servers (or {@code --sharded-client}): {@link ShardedConnector}, or {@link
 *       LibraryConnector} with {@code --library-client}.
 * </ul>
 */
final class ConnectorFactory {

    private final BenchmarkConfig config;
    private final InetSocketAddress address;
    private final KeySpace space; // null: the seed's random keys
    private final HistoryRecorder history; // null: no --history
    private final int historyKeys; // 0: random keys of keyLength bytes

    ConnectorFactory(
            BenchmarkConfig config,
            InetSocketAddress address,
            KeySpace space,
            HistoryRecorder history,
            int historyKeys) {
        this.config = config;
        this.address = address;
        this.space = space;
        this.history = history;
        this.historyKeys = historyKeys;
    }

    /** The connectors of this run, not started; each draws from its own seeded random. */
    BaseClient<BaseConnector> client() {
        Random seeds = config.seed() == null ? new Random() : new Random(config.seed());
        List<BaseConnector> connectors = new ArrayList<>();
        if (config.selectorThreads() > 0) {
            int firstClient = 0;
            int n = config.selectorThreads();
            for (int i = 0; i < n; i++) {
                // the connections split as evenly as they go: the first (clientThreads mod N) get
                // one more
                int share = config.clientThreads() / n + (i < config.clientThreads() % n ? 1 : 0);
                Random random = new Random(seeds.nextLong());
                var connector =
                        new SelectorConnector(
                                "selector-" + i,
                                address,
                                share,
                                frames(i, random, history != null),
                                config.v2Load());
                if (history != null) {
                    connector.recordHistory(history.log(), firstClient);
                }
                firstClient += share;
                connectors.add(connector);
            }
            return new BaseClient<>(connectors);
        }
        for (int i = 0; i < config.clientThreads(); i++) {
            connectors.add(connector(i, new Random(seeds.nextLong())));
        }
        return new BaseClient<>(connectors);
    }

    /** Client thread {@code i}'s connector. */
    private BaseConnector connector(int i, Random random) {
        String name = "client-" + i;
        if (config.clientMode() == ClientMode.PER_OP) {
            return perOp(i, random);
        }
        if (!config.shards().isEmpty()) {
            FrameSource shardFrames = frames(i, random, false);
            return config.libraryClient()
                    ? new LibraryConnector(
                            name,
                            config.shards(),
                            shardFrames,
                            config.v2Load(),
                            config.slots() != null)
                    : new ShardedConnector(
                            name, config.shards(), config.slots(), shardFrames, config.v2Load());
        }
        var connector =
                new V2Connector(
                        name,
                        address,
                        frames(i, random, history != null),
                        config.v2Load(),
                        config.orderPreserving());
        if (history != null) {
            connector.recordHistory(history.log(), i);
        }
        return connector;
    }

    /** The seed's connector; with shards, each operation's connection goes to its key's server. */
    private KeyValueConnector perOp(int i, Random random) {
        // with --workload: the workload's update share, not the positional setFrac it replaced
        double updateShare =
                config.keyed() == null ? config.setFraction() : config.keyed().mix().update();
        KeyValueSource source =
                config.keyed() == null
                        ? source(i, random)
                        : tagged(
                                config.keyed().readUpdateSource(space, random),
                                history == null ? null : new WriteTags(i));
        var connector =
                new KeyValueConnector(
                        address,
                        "client-" + i,
                        updateShare,
                        source,
                        KeyValueTracker.noop(),
                        random,
                        config.closeOrder(),
                        config.shards());
        if (history != null) {
            connector.recordHistory(history.log(), i);
        }
        return connector;
    }

    /**
     * One v2 connector's operations: the seed's random SET/GET, or the keyed workload's, with
     * {@code tagWrites} (--history) each of its written values made unique ({@link WriteTags}).
     */
    private FrameSource frames(int id, Random random, boolean tagWrites) {
        return config.keyed() == null
                ? FrameSource.seed(source(id, random), random, config.setFraction())
                : FrameSource.keyed(
                        config.keyed().generator(space, random),
                        tagWrites ? new WriteTags(id) : null);
    }

    /** {@code source} with every value stamped by {@code tags}; {@code source} when it is null. */
    private static KeyValueSource tagged(KeyValueSource source, WriteTags tags) {
        if (tags == null) {
            return source;
        }
        return new KeyValueSource() {
            @Override
            public ByteArrayWrapper nextKey() {
                return source.nextKey();
            }

            @Override
            public ByteArrayWrapper valueFor(ByteArrayWrapper key) {
                return tags.stamp(source.valueFor(key)); // a keyed source's values are new arrays
            }
        };
    }

    private KeyValueSource source(int id, Random random) {
        return historyKeys > 0
                ? new HistoryKeySource(
                        historyKeys, config.keyLength(), config.valueLength(), id, random)
                : new RandomKeyValueSource(config.keyLength(), config.valueLength(), random);
    }
}
