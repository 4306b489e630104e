package dbf0.kv.bench;

import dbf0.common.cli.Cli;
import dbf0.kv.bench.options.HistoryOptions;
import dbf0.kv.bench.options.ListenOptions;
import dbf0.kv.bench.options.ServerModelOption;
import dbf0.kv.bench.options.StoreCliOptions;
import dbf0.kv.bench.options.WalCliOptions;
import dbf0.kv.workload.YcsbWorkload;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The arguments of {@code dbf0 bench}, as picocli fills them in: the seed's seven positional
 * arguments, then the flags, in the order the usage lists them. {@link BenchmarkValidation} checks
 * them and turns them into a {@link BenchmarkConfig}.
 */
final class BenchmarkOptions {

    @Parameters(
            index = "0",
            paramLabel = "serverThreads",
            description = "server worker threads (1 = single-threaded)")
    int serverThreads;

    @Parameters(
            index = "1",
            paramLabel = "clientThreads",
            description = "client threads, each a connector")
    int clientThreads;

    @Parameters(
            index = "2",
            paramLabel = "mapType",
            description =
                    "hashmap, hashtable, synchronized, rwlock, striped (striped:N), concurrent "
                            + "(concurrent:N sized for N keys), skiplist, or a Map class name; "
                            + "constant (constant:N) measures the ceiling with no map at all")
    String mapType;

    @Parameters(
            index = "3",
            paramLabel = "keyLength",
            description =
                    "bytes per random key (1 = 256 keys): 1..127 in per-op mode (v1), up to 65536 "
                            + "in the v2 modes")
    int keyLength;

    @Parameters(
            index = "4",
            paramLabel = "valueLength",
            description =
                    "bytes per value: 0..127 in per-op mode (v1), up to 1048576 in the v2 modes")
    int valueLength;

    @Parameters(
            index = "5",
            paramLabel = "setFrac",
            description =
                    "fraction of operations that are SETs (with --records: updates of existing "
                            + "records), 0..1")
    double setFraction;

    @Parameters(
            index = "6",
            paramLabel = "duration",
            converter = Cli.DurationConverter.class,
            description =
                    "how long to run: seconds (10), with a unit (10s, 500ms) or ISO-8601 (PT10S)")
    Duration duration;

    @Mixin ListenOptions listen = new ListenOptions(0, "port");

    @Option(
            names = "--connect",
            paramLabel = "HOST:PORT[,HOST:PORT...]",
            description =
                    "run only the clients, against a server started elsewhere with `dbf0 server`;"
                        + " with several servers, every client sends each key to the one it is"
                        + " placed on by jump consistent hash (ShardedKeyValueClient; per-op opens"
                        + " each operation's connection to its key's server)")
    String connect;

    @Option(
            names = "--cluster",
            paramLabel = "HOST:PORT",
            description =
                    "run only the clients, against a dbf0 cluster (`dbf0 server --cluster-nodes`):"
                        + " learn the slot map from this one node and send each key to the node"
                        + " that serves its hash slot (v2 modes); a MOVED reply is followed, and"
                        + " counted in the JSON's redirects")
    String cluster;

    @Option(
            names = "--sharded-client",
            description =
                    "go through the sharded clients even with one --connect server, to measure "
                            + "what the sharding layer costs against the plain load generator")
    boolean shardedClient;

    @Option(
            names = "--library-client",
            description =
                    "with several --connect servers or --sharded-client, v2 clients go through the"
                        + " library's ShardedKeyValueClient (a future per frame, a reader thread"
                        + " per connection) instead of the benchmark's own sharded load generator")
    boolean libraryClient;

    @Option(
            names = "--seed",
            description = "seed for the clients' random keys (default: a new one each run)")
    Long seed;

    @Mixin ServerModelOption serverModel = new ServerModelOption();

    @Option(
            names = "--client-mode",
            defaultValue = "per-op",
            paramLabel = "MODE",
            description =
                    "per-op (v1, a connection per operation, the seed's), persistent, pipelined "
                            + "or batched (v2) (default: ${DEFAULT-VALUE})")
    String clientMode;

    @Option(
            names = "--pipeline",
            paramLabel = "N",
            description =
                    "requests in flight per connection: pipelined mode (default 16), batched mode "
                            + "(default 1)")
    Integer pipeline;

    @Option(
            names = "--batch",
            defaultValue = "100",
            paramLabel = "N",
            description = "batched mode: operations per frame (default: ${DEFAULT-VALUE})")
    int batch;

    @Option(
            names = "--client-thread-kind",
            defaultValue = "platform",
            paramLabel = "KIND",
            description =
                    "what each client runs on: platform (a kernel thread each, the seed's) or"
                        + " virtual (virtual threads, multiplexed over one carrier thread per core)"
                        + " (default: ${DEFAULT-VALUE})")
    String clientThreadKind;

    @Option(
            names = "--selector-threads",
            defaultValue = "0",
            paramLabel = "N",
            description =
                    "v2 modes: drive the clientThreads connections from N selector threads, as"
                            + " redis-benchmark does, instead of one blocking thread per connection"
                            + " (default: 0, a thread per connection)")
    int selectorThreads;

    @Option(
            names = "--order-preserving",
            description =
                    "pipelined/batched: a SET waits until the GETs before it are answered (keeps "
                            + "the generator's order)")
    boolean orderPreserving;

    @Option(
            names = "--close-order",
            defaultValue = "client-first",
            paramLabel = "WHO",
            description =
                    "per-op mode: client-first (the seed's: TIME_WAIT on the client) or "
                            + "server-first (default: ${DEFAULT-VALUE})")
    String closeOrder;

    @Option(
            names = "--backlog",
            paramLabel = "N",
            description =
                    "the server's accept queue (default: 50 in per-op mode, the seed's, which"
                        + " write-heavy runs overflow: a dropped connection attempt is retried a"
                        + " second later; 1024 in the v2 modes)")
    Integer backlog;

    @Option(
            names = "--warmup",
            defaultValue = "PT0S",
            paramLabel = "DURATION",
            description =
                    "load before the measured interval, not counted, e.g. PT2S (default: none)")
    String warmup;

    @Option(
            names = "--records",
            paramLabel = "N",
            description =
                    "a keyed workload: load N records before the measured interval (not counted;"
                        + " straight into the map when the server runs here, through its log with"
                        + " --data-dir, in v2 batches of 1,000 with --connect), then choose keys"
                        + " among them by --key-dist instead of fresh random bytes (default: none,"
                        + " the seed's random keys; "
                            + YcsbWorkload.DEFAULT_RECORDS
                            + " with --workload); with --history the loaded records are in the"
                            + " history too; not with --history-keys; with several --connect"
                            + " servers each record is loaded into the server its key is placed on")
    Long records;

    @Option(
            names = "--key-dist",
            paramLabel = "DIST",
            description =
                    "with --records: how keys are chosen: uniform, zipfian, hotspot, latest (recent"
                        + " inserts most) or exponential (recent records most, YCSB's 95%% within"
                        + " the newest 6/7) (default: uniform; --workload sets its own)")
    String keyDist;

    @Option(
            names = "--zipf-theta",
            defaultValue = "0.99",
            paramLabel = "THETA",
            description = "zipfian and latest: skew, in (0, 1) (default: ${DEFAULT-VALUE}, YCSB's)")
    double zipfTheta;

    @Option(
            names = "--hotspot-fraction",
            defaultValue = "0.2",
            paramLabel = "F",
            description =
                    "hotspot: the share of the records that are hot (default: ${DEFAULT-VALUE}, "
                            + "YCSB's)")
    double hotspotFraction;

    @Option(
            names = "--hotspot-ops-fraction",
            defaultValue = "0.8",
            paramLabel = "F",
            description =
                    "hotspot: the share of the operations that go to the hot records (default: "
                            + "${DEFAULT-VALUE}, YCSB's)")
    double hotspotOpsFraction;

    @Option(
            names = "--insert-frac",
            defaultValue = "0",
            paramLabel = "F",
            description =
                    "with --records, v2 modes: the share of operations that insert new records past"
                            + " the loaded ones; reads are what setFrac and this leave (default: "
                            + "${DEFAULT-VALUE})")
    double insertFraction;

    @Option(
            names = "--workload",
            paramLabel = "W",
            description =
                    "YCSB core workload A (50%% reads, 50%% updates), B (95/5), C (reads only), D"
                        + " (95%% reads of the latest, 5%% inserts) or F (50%% reads, 50%%"
                        + " read-modify-writes); zipfian keys but D's latest; the workload's mix"
                        + " replaces setFrac, and the JSON reports the shares used (E, range scans,"
                        + " has no dbf0 operation)")
    String workload;

    @Mixin HistoryOptions history = new HistoryOptions();

    @Option(
            names = "--history-keys",
            paramLabel = "N",
            description =
                    "draw keys from N fixed keys, and write a distinct value with every SET, so a"
                            + " history has many operations per key (default: the random keys of"
                            + " keyLength bytes)")
    Integer historyKeys;

    @Mixin WalCliOptions wal;

    @Mixin StoreCliOptions store = new StoreCliOptions();
}
