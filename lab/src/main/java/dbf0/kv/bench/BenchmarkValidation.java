package dbf0.kv.bench;

import dbf0.common.Durations;
import dbf0.common.cli.Cli;
import dbf0.common.cli.ErrorText;
import dbf0.kv.bench.KeyValueConnector.CloseOrder;
import dbf0.kv.bench.options.MapOption;
import dbf0.kv.client.SlotPlacement;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.workload.KeyDistribution;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.OperationMix;
import dbf0.kv.workload.YcsbWorkload;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Checks the arguments of {@code dbf0 bench} against each other and turns them into a {@link
 * BenchmarkConfig}. Every failed check is a bad argument: picocli reports its message and the exit
 * status is 2.
 */
final class BenchmarkValidation {

    private final BenchmarkOptions opts;
    private final CommandSpec spec;

    private BenchmarkValidation(BenchmarkOptions options, CommandSpec spec) {
        this.opts = options;
        this.spec = spec;
    }

    /** The run {@code options} ask for; throws a ParameterException on {@code spec} if bad. */
    static BenchmarkConfig validate(BenchmarkOptions options, CommandSpec spec) {
        return new BenchmarkValidation(options, spec).config();
    }

    private BenchmarkConfig config() {
        require(
                opts.serverThreads >= 1,
                "serverThreads must be at least 1, got " + opts.serverThreads);
        require(
                opts.clientThreads >= 1,
                "clientThreads must be at least 1, got " + opts.clientThreads);
        ClientMode mode = Cli.parameter(spec, () -> ClientMode.parse(opts.clientMode));
        checkLengths(mode);
        require(
                opts.setFraction >= 0 && opts.setFraction <= 1,
                "setFrac must be between 0 and 1, got " + opts.setFraction);
        int port = opts.listen.port(spec);
        int accept =
                opts.backlog != null
                        ? opts.backlog
                        : mode == ClientMode.PER_OP
                                ? ServerOptions.SEED_BACKLOG
                                : ServerOptions.DEFAULT_BACKLOG;
        require(accept >= 1, "--backlog must be at least 1, got " + accept);
        MapOption.check(spec, opts.mapType);
        int depth = opts.pipeline != null ? opts.pipeline : mode == ClientMode.PIPELINED ? 16 : 1;
        require(depth >= 1 && depth <= 65_536, "--pipeline must be 1..65536, got " + depth);
        require(
                opts.batch >= 1 && opts.batch <= 100_000,
                "--batch must be 1..100000, got " + opts.batch);
        checkSelectors(mode);
        List<InetSocketAddress> servers =
                opts.connect == null
                        ? List.of()
                        : Arrays.stream(opts.connect.split(",", -1))
                                .map(this::parseHostPort)
                                .toList();
        SlotPlacement slots = cluster(mode);
        if (slots != null) {
            servers = slots.nodes();
        }
        InetSocketAddress connectTo = servers.isEmpty() ? null : servers.get(0);
        List<InetSocketAddress> shards =
                servers.size() > 1 || opts.shardedClient || slots != null ? servers : List.of();
        require(!opts.shardedClient || connectTo != null, "--sharded-client needs --connect");
        require(
                !opts.libraryClient || !shards.isEmpty(),
                "--library-client needs several --connect servers or --sharded-client");
        require(
                shards.isEmpty() || opts.selectorThreads == 0 && !opts.orderPreserving,
                "several --connect servers (or --sharded-client) cannot go with --selector-threads"
                        + " or --order-preserving");
        Duration warm = Cli.parameter(spec, () -> Durations.parse(opts.warmup));
        require(!warm.isNegative(), "--warmup must not be negative");
        CloseOrder order =
                Cli.parameter(
                        spec,
                        () ->
                                switch (opts.closeOrder) {
                                    case "client-first" -> CloseOrder.CLIENT_FIRST;
                                    case "server-first" -> CloseOrder.SERVER_FIRST;
                                    default ->
                                            throw new IllegalArgumentException(
                                                    "--close-order is client-first or server-first,"
                                                            + " got '"
                                                            + opts.closeOrder
                                                            + "'");
                                });
        ServerModel model = opts.serverModel.model(spec);
        ClientThreadKind threadKind =
                Cli.parameter(spec, () -> ClientThreadKind.parse(opts.clientThreadKind));
        checkHistoryKeys();
        KeyedWorkload keyed = keyedWorkload(mode);
        checkHistory(mode, shards, keyed);
        return BenchmarkConfig.builder()
                .serverThreads(opts.serverThreads)
                .clientThreads(opts.clientThreads)
                .mapType(opts.mapType)
                .keyLength(opts.keyLength)
                .valueLength(opts.valueLength)
                .setFraction(opts.setFraction)
                .duration(opts.duration)
                .bindHost(opts.listen.bind())
                .port(port)
                .connectTo(connectTo)
                .seed(opts.seed)
                .serverModel(model)
                .clientMode(mode)
                .closeOrder(order)
                .pipeline(depth)
                .batch(opts.batch)
                .warmup(warm)
                .orderPreserving(opts.orderPreserving)
                .backlog(accept)
                .clientThreadKind(threadKind)
                .selectorThreads(opts.selectorThreads)
                .keyed(keyed)
                .shards(shards)
                .libraryClient(opts.libraryClient)
                .slots(slots)
                .build();
    }

    /** v1 frames hold lengths up to 127; v2 allows far more. */
    private void checkLengths(ClientMode mode) {
        if (mode == ClientMode.PER_OP) {
            require(
                    opts.keyLength >= 1 && opts.keyLength <= V1Codec.MAX_LENGTH,
                    "keyLength must be 1..127 in per-op mode (v1), got " + opts.keyLength);
            require(
                    opts.valueLength >= 0 && opts.valueLength <= V1Codec.MAX_LENGTH,
                    "valueLength must be 0..127 in per-op mode (v1), got " + opts.valueLength);
        } else {
            require(
                    opts.keyLength >= 1 && opts.keyLength <= 1 << 16,
                    "keyLength must be 1..65536, got " + opts.keyLength);
            require(
                    opts.valueLength >= 0 && opts.valueLength <= 1 << 20,
                    "valueLength must be 0..1048576, got " + opts.valueLength);
        }
    }

    private void checkSelectors(ClientMode mode) {
        require(
                opts.selectorThreads >= 0 && opts.selectorThreads <= opts.clientThreads,
                "--selector-threads must be 0..clientThreads ("
                        + opts.clientThreads
                        + "), got "
                        + opts.selectorThreads);
        require(
                opts.selectorThreads == 0 || mode != ClientMode.PER_OP,
                "--selector-threads needs a v2 client mode (persistent, pipelined or batched):"
                        + " per-op opens a connection per operation");
        require(
                opts.selectorThreads == 0 || !opts.orderPreserving,
                "--selector-threads spreads operations over connections, so it cannot be "
                        + "--order-preserving");
    }

    private void checkHistoryKeys() {
        opts.history.check(spec);
        require(
                opts.historyKeys == null || opts.historyKeys >= 1,
                "--history-keys must be at least 1, got " + opts.historyKeys);
        require(
                opts.historyKeys == null
                        || opts.keyLength >= 4
                        || opts.historyKeys <= 1 << (8 * opts.keyLength),
                "--history-keys "
                        + opts.historyKeys
                        + " does not fit in "
                        + opts.keyLength
                        + "-byte keys");
    }

    private void checkHistory(
            ClientMode mode, List<InetSocketAddress> shards, KeyedWorkload keyed) {
        // The sharded connectors keep no FrameHistory: their operations would be missing.
        require(
                opts.history.file() == null || shards.isEmpty() || mode == ClientMode.PER_OP,
                "--history cannot go with several --connect servers or --sharded-client in a v2"
                    + " client mode: the sharded client's operations are not recorded (per-op mode"
                    + " records them)");
        require(
                keyed == null || opts.historyKeys == null,
                "--history-keys cannot go with --records or --workload: the keyed workload chooses"
                        + " its own keys");
    }

    /** The keyed workload the flags ask for, or null for the seed's random keys. */
    private KeyedWorkload keyedWorkload(ClientMode mode) {
        YcsbWorkload ycsb =
                opts.workload == null
                        ? null
                        : Cli.parameter(spec, () -> YcsbWorkload.parse(opts.workload));
        if (ycsb == null && opts.records == null) {
            require(
                    opts.keyDist == null,
                    "--key-dist needs --records (or --workload): the records to choose among");
            require(opts.insertFraction == 0, "--insert-frac needs --records (or --workload)");
            return null;
        }
        long count = opts.records != null ? opts.records : YcsbWorkload.DEFAULT_RECORDS;
        require(count >= 1, "--records must be at least 1, got " + count);
        require(
                ycsb == null || opts.insertFraction == 0,
                "--workload sets the inserts itself; leave out --insert-frac");
        require(
                opts.insertFraction >= 0 && opts.insertFraction <= 1,
                "--insert-frac must be between 0 and 1, got " + opts.insertFraction);
        OperationMix mix =
                ycsb != null
                        ? ycsb.mix()
                        : Cli.parameter(
                                spec, () -> OperationMix.of(opts.setFraction, opts.insertFraction));
        require(
                mode != ClientMode.PER_OP || (mix.insert() == 0 && mix.readModifyWrite() == 0),
                "inserts and read-modify-writes need a v2 client mode (persistent, pipelined or "
                        + "batched): the per-op (v1) generator only reads and updates");
        String dist =
                opts.keyDist != null
                        ? opts.keyDist
                        : ycsb != null ? ycsb.keyDistribution() : "uniform";
        KeyDistribution distribution =
                Cli.parameter(
                        spec,
                        () ->
                                new KeyDistribution(
                                        dist,
                                        opts.zipfTheta,
                                        opts.hotspotFraction,
                                        opts.hotspotOpsFraction));
        return Cli.parameter(
                spec,
                () ->
                        new KeyedWorkload(
                                ycsb == null ? null : ycsb.name(),
                                count,
                                distribution,
                                mix,
                                opts.keyLength,
                                opts.valueLength));
    }

    private InetSocketAddress parseHostPort(String text) {
        int colon = text.lastIndexOf(':');
        require(colon > 0, "--connect wants HOST:PORT, got '" + text + "'");
        try {
            return new InetSocketAddress(
                    text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--connect wants HOST:PORT, got '" + text + "'");
        }
    }

    private void require(boolean condition, String message) {
        Cli.require(spec, condition, message);
    }

    /** With {@code --cluster}: the slot map, asked of that node; null without it. */
    private SlotPlacement cluster(ClientMode mode) {
        if (opts.cluster == null) {
            return null;
        }
        require(opts.connect == null, "--cluster and --connect cannot go together");
        require(mode != ClientMode.PER_OP, "--cluster drives v2 clients, not --client-mode per-op");
        InetSocketAddress node = parseHostPort(opts.cluster);
        try {
            return SlotPlacement.fetch(node, ProtocolLimits.DEFAULTS, Duration.ofSeconds(10));
        } catch (IOException e) {
            // a failure to run, not a bad argument: the node may only be down
            throw new Cli.Failure(
                    "no slot map from --cluster "
                            + ErrorText.address(node)
                            + ": "
                            + ErrorText.of(e),
                    e);
        }
    }
}
