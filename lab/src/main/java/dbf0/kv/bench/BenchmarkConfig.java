package dbf0.kv.bench;

import dbf0.common.Words;
import dbf0.kv.bench.KeyValueConnector.CloseOrder;
import dbf0.kv.client.SlotPlacement;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.workload.KeyedWorkload;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One benchmark run: the seed's seven arguments, then how server and clients run.
 *
 * @param connectTo null to start a server in this JVM; otherwise the address of a server that is
 *     already running (started with {@code dbf0 server}), and only the clients run here
 * @param warmup load that runs before the measured interval and is not counted
 * @param pipeline requests in flight per connection (pipelined mode)
 * @param batch operations per frame (batched mode)
 * @param orderPreserving pipelined/batched: a SET waits for the GETs before it
 * @param backlog the server's accept queue (the seed's was 50)
 * @param clientThreadKind what each load-generating client runs on: platform or virtual threads
 * @param selectorThreads 0: one thread per client connection; otherwise the v2 connections ({@code
 *     clientThreads} of them) are driven by this many selector threads
 * @param keyed null for the seed's workload (random keys, setFrac SETs); otherwise records loaded
 *     before the run and a key distribution and operation mix over them ({@code --records}, {@code
 *     --key-dist}, {@code --workload})
 * @param shards empty for one server; otherwise every server of a sharded run, in placement order
 *     (the first is {@code connectTo}): each client sends each key to the server {@link
 *     dbf0.kv.client.ShardedKeyValueClient} places it on (v2: a connection to every server; per-op:
 *     each operation's connection goes to its key's server)
 * @param libraryClient with {@code shards}, v2 clients go through the library's {@link
 *     dbf0.kv.client.ShardedKeyValueClient} instead of the benchmark's own sharded load generator,
 *     to measure what the library's design costs
 * @param slots with {@code --cluster}: the cluster's slot map, which then places keys instead of
 *     the jump hash ({@code shards} are its nodes); null otherwise
 */
public record BenchmarkConfig(
        int serverThreads,
        int clientThreads,
        String mapType,
        int keyLength,
        int valueLength,
        double setFraction,
        Duration duration,
        String bindHost,
        int port,
        InetSocketAddress connectTo,
        Long seed,
        ServerModel serverModel,
        ClientMode clientMode,
        CloseOrder closeOrder,
        int pipeline,
        int batch,
        Duration warmup,
        boolean orderPreserving,
        int backlog,
        ClientThreadKind clientThreadKind,
        int selectorThreads,
        KeyedWorkload keyed,
        List<InetSocketAddress> shards,
        boolean libraryClient,
        SlotPlacement slots) {

    public BenchmarkConfig {
        shards = shards == null ? List.of() : List.copyOf(shards);
    }

    /** A seed-style run: pool server in this JVM on 127.0.0.1, any free port, per-op clients. */
    public static BenchmarkConfig local(
            int serverThreads,
            int clientThreads,
            String mapType,
            int keyLength,
            int valueLength,
            double setFraction,
            Duration duration) {
        return builder()
                .serverThreads(serverThreads)
                .clientThreads(clientThreads)
                .mapType(mapType)
                .keyLength(keyLength)
                .valueLength(valueLength)
                .setFraction(setFraction)
                .duration(duration)
                .build();
    }

    /** A builder with {@link #local}'s seed-style defaults; the seven seed arguments have none. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this run. */
    public Builder toBuilder() {
        return new Builder()
                .serverThreads(serverThreads)
                .clientThreads(clientThreads)
                .mapType(mapType)
                .keyLength(keyLength)
                .valueLength(valueLength)
                .setFraction(setFraction)
                .duration(duration)
                .bindHost(bindHost)
                .port(port)
                .connectTo(connectTo)
                .seed(seed)
                .serverModel(serverModel)
                .clientMode(clientMode)
                .closeOrder(closeOrder)
                .pipeline(pipeline)
                .batch(batch)
                .warmup(warmup)
                .orderPreserving(orderPreserving)
                .backlog(backlog)
                .clientThreadKind(clientThreadKind)
                .selectorThreads(selectorThreads)
                .keyed(keyed)
                .shards(shards)
                .libraryClient(libraryClient)
                .slots(slots);
    }

    /** Names each of the 24 components, so that no call site has to count positions. */
    public static final class Builder {
        private int serverThreads;
        private int clientThreads;
        private String mapType;
        private int keyLength;
        private int valueLength;
        private double setFraction;
        private Duration duration;
        private String bindHost = "127.0.0.1";
        private int port;
        private InetSocketAddress connectTo;
        private Long seed;
        private ServerModel serverModel = ServerModel.POOL;
        private ClientMode clientMode = ClientMode.PER_OP;
        private CloseOrder closeOrder = CloseOrder.CLIENT_FIRST;
        private int pipeline = 1;
        private int batch = 1;
        private Duration warmup = Duration.ZERO;
        private boolean orderPreserving;
        private int backlog = ServerOptions.SEED_BACKLOG;
        private ClientThreadKind clientThreadKind = ClientThreadKind.PLATFORM;
        private int selectorThreads;
        private KeyedWorkload keyed;
        private List<InetSocketAddress> shards = List.of();
        private SlotPlacement slots;

        /**
         * Places keys by a cluster's slot map ({@code --cluster}).
         *
         * @param placement the map; null for none
         * @return this builder
         */
        public Builder slots(SlotPlacement placement) {
            slots = placement;
            return this;
        }

        private boolean libraryClient;

        private Builder() {}

        public Builder serverThreads(int n) {
            serverThreads = n;
            return this;
        }

        public Builder clientThreads(int n) {
            clientThreads = n;
            return this;
        }

        public Builder mapType(String name) {
            mapType = name;
            return this;
        }

        public Builder keyLength(int bytes) {
            keyLength = bytes;
            return this;
        }

        public Builder valueLength(int bytes) {
            valueLength = bytes;
            return this;
        }

        public Builder setFraction(double fraction) {
            setFraction = fraction;
            return this;
        }

        public Builder duration(Duration d) {
            duration = d;
            return this;
        }

        public Builder bindHost(String host) {
            bindHost = host;
            return this;
        }

        public Builder port(int p) {
            port = p;
            return this;
        }

        public Builder connectTo(InetSocketAddress address) {
            connectTo = address;
            return this;
        }

        public Builder seed(Long s) {
            seed = s;
            return this;
        }

        public Builder serverModel(ServerModel model) {
            serverModel = model;
            return this;
        }

        public Builder clientMode(ClientMode mode) {
            clientMode = mode;
            return this;
        }

        public Builder closeOrder(CloseOrder order) {
            closeOrder = order;
            return this;
        }

        public Builder pipeline(int depth) {
            pipeline = depth;
            return this;
        }

        public Builder batch(int size) {
            batch = size;
            return this;
        }

        public Builder warmup(Duration d) {
            warmup = d;
            return this;
        }

        public Builder orderPreserving(boolean on) {
            orderPreserving = on;
            return this;
        }

        public Builder backlog(int n) {
            backlog = n;
            return this;
        }

        public Builder clientThreadKind(ClientThreadKind kind) {
            clientThreadKind = kind;
            return this;
        }

        public Builder selectorThreads(int n) {
            selectorThreads = n;
            return this;
        }

        /** Records, key distribution and mix; null (the default) for the seed's random keys. */
        public Builder keyed(KeyedWorkload workload) {
            keyed = workload;
            return this;
        }

        public Builder shards(List<InetSocketAddress> servers) {
            shards = servers;
            return this;
        }

        /**
         * Sharded v2 clients through the library's ShardedKeyValueClient (false: the bench's own).
         */
        public Builder libraryClient(boolean library) {
            libraryClient = library;
            return this;
        }

        public BenchmarkConfig build() {
            return new BenchmarkConfig(
                    serverThreads,
                    clientThreads,
                    mapType,
                    keyLength,
                    valueLength,
                    setFraction,
                    duration,
                    bindHost,
                    port,
                    connectTo,
                    seed,
                    serverModel,
                    clientMode,
                    closeOrder,
                    pipeline,
                    batch,
                    warmup,
                    orderPreserving,
                    backlog,
                    clientThreadKind,
                    selectorThreads,
                    keyed,
                    shards,
                    libraryClient,
                    slots);
        }
    }

    /** v2 frames in flight per connection: 1 when persistent, else {@code pipeline}. */
    public int window() {
        return clientMode == ClientMode.PERSISTENT ? 1 : pipeline;
    }

    /** v2 operations per frame: {@code batch} when batched, else 1. */
    public int frameOps() {
        return clientMode == ClientMode.BATCHED ? batch : 1;
    }

    /** What each v2 connector sends: this run's SET share, window and operations per frame. */
    V2Load v2Load() {
        return new V2Load(setFraction, window(), frameOps());
    }

    /**
     * What makes this run measure something other than it seems to; empty when nothing does. A pool
     * server gives each connection one of its threads until the connection closes, so with more
     * persistent v2 connections than pool threads the extra clients wait for a thread the whole
     * run: their first operation's latency (max_us) is about the run's length.
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        if (connectTo == null
                && serverModel == ServerModel.POOL
                && clientMode != ClientMode.PER_OP
                && clientThreads > serverThreads) {
            warnings.add(
                    String.format(
                            "the pool server has %s for %s; a pool thread serves one connection"
                                + " until it closes, so %s for a thread the whole run and max_us is"
                                + " about the run's length (use --server-model nio or virtual, or"
                                + " at least as many server threads as clients)",
                            Words.count(serverThreads, "thread"),
                            Words.count(clientThreads, clientMode.cliName() + " v2 connection"),
                            Words.count(
                                    clientThreads - serverThreads,
                                    "connection waits",
                                    "connections wait")));
        }
        return List.copyOf(warnings);
    }

    public BenchmarkConfig withCloseOrder(CloseOrder order) {
        return toBuilder().closeOrder(order).build();
    }
}
