package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.Durations;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.options.ListenOptions;
import dbf0.kv.bench.options.MapOption;
import dbf0.kv.bench.options.ServerModelOption;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.bench.options.WalCliOptions;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.wal.WalStats;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyValueTracker;
import dbf0.kv.workload.KeyDistribution;
import dbf0.kv.workload.KeySpace;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.OperationMix;
import dbf0.kv.workload.RandomKeyValueSource;
import dbf0.kv.workload.YcsbWorkload;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The seed's benchmark harness: a server and {@code clientThreads} load generators in one JVM on
 * loopback, run for a duration, then exactly one JSON object on stdout (logs go to stderr).
 *
 * <pre>
 *   java -jar target/dbf0.jar bench 4 8 concurrent 16 64 0.1 PT10S
 *   java -cp target/dbf0.jar dbf0.kv.bench.Benchmark 4 8 concurrent 16 64 0.1 PT10S
 *   {"set":11092,"get":98348,"found":0,"missingKey":0,"errors":0,"seconds":10.004,"ops_per_sec":10939.4,
 *    "p50_us":80,"p90_us":110,"p99_us":180,"p999_us":900,"max_us":12000,"server_model":"pool",...}
 * </pre>
 *
 * Bad or missing arguments print the usage and exit with status 2.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
        "Measures a dbf0 server under load for a while and prints the result as one JSON object.",
        "The server (v1 and v2 on one port) and the load-generating clients run in this JVM on loopback, "
            + "or only the clients run, against --connect. The JSON holds set, get, found, missingKey, errors, "
            + "seconds, ops_per_sec, latency percentiles in microseconds (p50_us, p90_us, p99_us, p999_us, "
            + "max_us), the modes, and warnings about the setup when there are any; with --records or --workload also "
            + "insert, read_modify_write and the keyed settings (records, key_dist, zipf_theta, hotspot_fraction, "
            + "hotspot_ops_fraction, insert_frac, workload, read_frac, update_frac, rmw_frac, load); with --data-dir "
            + "what the log did in the measured interval (fsync, wal_records, wal_fsyncs, wal_records_forced, "
            + "wal_fsyncs_per_sec, wal_records_per_fsync).",
        "Exit status: 0 when operations succeeded, 1 when none did (e.g. nothing listens at --connect), "
            + "2 for bad arguments."},
    footer = {
        "",
        "Examples:",
        "  read-heavy, 4 server / 8 client threads:",
        "    dbf0 bench 4 8 concurrent 16 64 0.1 PT10S",
        "  v2 pipelined, 1 KiB values:",
        "    dbf0 bench 2 4 concurrent 16 1024 0.5 10s --client-mode pipelined",
        "  clients only, against a server started elsewhere:",
        "    dbf0 bench 4 8 concurrent 16 64 0.5 PT10S --connect host:9000",
        "  100,000 records, zipfian keys, 1,000 operations per frame:",
        "    dbf0 bench 2 4 concurrent 16 64 0.5 10s --client-mode batched --batch 1000 --records 100000 --key-dist zipfian",
        "  YCSB's workload A (50/50 read/update, zipfian, 100,000 records):",
        "    dbf0 bench 2 4 concurrent 16 64 0.5 10s --client-mode persistent --server-model nio --workload A"})
public final class Benchmark implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(Benchmark.class);

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "serverThreads", description = "server worker threads (1 = single-threaded)")
  int serverThreads;

  @Parameters(index = "1", paramLabel = "clientThreads", description = "client threads, each a connector")
  int clientThreads;

  @Parameters(index = "2", paramLabel = "mapType",
      description = "hashmap, hashtable, synchronized, rwlock, striped (striped:N), concurrent, skiplist, or a Map class name")
  String mapType;

  @Parameters(index = "3", paramLabel = "keyLength", description = "bytes per random key (1 = 256 keys): 1..127 in per-op mode (v1), up to 65536 in the v2 modes")
  int keyLength;

  @Parameters(index = "4", paramLabel = "valueLength", description = "bytes per value: 0..127 in per-op mode (v1), up to 1048576 in the v2 modes")
  int valueLength;

  @Parameters(index = "5", paramLabel = "setFrac",
      description = "fraction of operations that are SETs (with --records: updates of existing records), 0..1")
  double setFraction;

  @Parameters(index = "6", paramLabel = "duration", converter = Cli.DurationConverter.class,
      description = "how long to run: seconds (10), with a unit (10s, 500ms) or ISO-8601 (PT10S)")
  Duration duration;

  @Mixin ListenOptions listen = new ListenOptions(0, "port");

  @Option(names = "--connect", paramLabel = "HOST:PORT[,HOST:PORT...]",
      description = "run only the clients, against a server started elsewhere with `dbf0 server`; with several "
          + "servers, every client sends each key to the one it is placed on by jump consistent hash "
          + "(ShardedKeyValueClient; per-op opens each operation's connection to its key's server)")
  String connect;

  @Option(names = "--sharded-client",
      description = "go through the sharded clients even with one --connect server, to measure what "
          + "the sharding layer costs against the plain load generator")
  boolean shardedClient;

  @Option(names = "--library-client",
      description = "with several --connect servers or --sharded-client, v2 clients go through the library's "
          + "ShardedKeyValueClient (a future per frame, a reader thread per connection) instead of the "
          + "benchmark's own sharded load generator")
  boolean libraryClient;

  @Option(names = "--seed", description = "seed for the clients' random keys (default: a new one each run)")
  Long seed;

  @Mixin ServerModelOption serverModel = new ServerModelOption();

  @Option(names = "--client-mode", defaultValue = "per-op", paramLabel = "MODE",
      description = "per-op (v1, a connection per operation, the seed's), persistent, pipelined or batched (v2) (default: ${DEFAULT-VALUE})")
  String clientMode;

  @Option(names = "--pipeline", paramLabel = "N",
      description = "requests in flight per connection: pipelined mode (default 16), batched mode (default 1)")
  Integer pipeline;

  @Option(names = "--batch", defaultValue = "100", paramLabel = "N",
      description = "batched mode: operations per frame (default: ${DEFAULT-VALUE})")
  int batch;

  @Option(names = "--client-thread-kind", defaultValue = "platform", paramLabel = "KIND",
      description = "what each client runs on: platform (a kernel thread each, the seed's) or virtual (virtual "
          + "threads, multiplexed over one carrier thread per core) (default: ${DEFAULT-VALUE})")
  String clientThreadKind;

  @Option(names = "--selector-threads", defaultValue = "0", paramLabel = "N",
      description = "v2 modes: drive the clientThreads connections from N selector threads, as redis-benchmark "
          + "does, instead of one blocking thread per connection (default: 0, a thread per connection)")
  int selectorThreads;

  @Option(names = "--order-preserving",
      description = "pipelined/batched: a SET waits until the GETs before it are answered (keeps the generator's order)")
  boolean orderPreserving;

  @Option(names = "--close-order", defaultValue = "client-first", paramLabel = "WHO",
      description = "per-op mode: client-first (the seed's: TIME_WAIT on the client) or server-first (default: ${DEFAULT-VALUE})")
  String closeOrder;

  @Option(names = "--backlog", paramLabel = "N",
      description = "the server's accept queue (default: 50 in per-op mode, the seed's, which write-heavy runs "
          + "overflow: a dropped connection attempt is retried a second later; 1024 in the v2 modes)")
  Integer backlog;

  @Option(names = "--warmup", defaultValue = "PT0S", paramLabel = "DURATION",
      description = "load before the measured interval, not counted, e.g. PT2S (default: none)")
  String warmup;

  @Option(names = "--records", paramLabel = "N",
      description = "a keyed workload: load N records before the measured interval (not counted; straight into the "
          + "map when the server runs here, through its log with --data-dir, in v2 batches of 1,000 with --connect), then choose keys among them by "
          + "--key-dist instead of fresh random bytes (default: none, the seed's random keys; "
          + YcsbWorkload.DEFAULT_RECORDS + " with --workload); with --history the loaded records are in the history too; "
          + "not with --history-keys; with several --connect servers each record is loaded into the server its key is "
          + "placed on")
  Long records;

  @Option(names = "--key-dist", paramLabel = "DIST",
      description = "with --records: how keys are chosen: uniform, zipfian, hotspot, latest (recent inserts most) or "
          + "exponential (recent records most, YCSB's 95%% within the newest 6/7) (default: uniform; --workload "
          + "sets its own)")
  String keyDist;

  @Option(names = "--zipf-theta", defaultValue = "0.99", paramLabel = "THETA",
      description = "zipfian and latest: skew, in (0, 1) (default: ${DEFAULT-VALUE}, YCSB's)")
  double zipfTheta;

  @Option(names = "--hotspot-fraction", defaultValue = "0.2", paramLabel = "F",
      description = "hotspot: the share of the records that are hot (default: ${DEFAULT-VALUE}, YCSB's)")
  double hotspotFraction;

  @Option(names = "--hotspot-ops-fraction", defaultValue = "0.8", paramLabel = "F",
      description = "hotspot: the share of the operations that go to the hot records (default: ${DEFAULT-VALUE}, YCSB's)")
  double hotspotOpsFraction;

  @Option(names = "--insert-frac", defaultValue = "0", paramLabel = "F",
      description = "with --records, v2 modes: the share of operations that insert new records past the loaded "
          + "ones; reads are what setFrac and this leave (default: ${DEFAULT-VALUE})")
  double insertFraction;

  @Option(names = "--workload", paramLabel = "W",
      description = "YCSB core workload A (50%% reads, 50%% updates), B (95/5), C (reads only), D (95%% reads of the "
          + "latest, 5%% inserts) or F (50%% reads, 50%% read-modify-writes); zipfian keys but D's latest; the "
          + "workload's mix replaces setFrac, and the JSON reports the shares used (E, range scans, has no dbf0 "
          + "operation)")
  String workload;
  @Option(names = "--history", paramLabel = "FILE",
      description = "record every operation (client, key, value, times, outcome) to FILE in the dbf0 JSON Lines "
          + "format, for `dbf0 check` (docs/correctness.md)")
  Path history;

  @Option(names = "--history-limit", defaultValue = "1000000", paramLabel = "N",
      description = "--history: record at most N operations; the run goes on (default: ${DEFAULT-VALUE})")
  long historyLimit;

  @Option(names = "--history-keys", paramLabel = "N",
      description = "draw keys from N fixed keys, and write a distinct value with every SET, so a history has "
          + "many operations per key (default: the random keys of keyLength bytes)")
  Integer historyKeys;

  public static void main(String[] args) {
    Cli.runAndExit(new Benchmark(), args);
  }

  @Mixin WalCliOptions wal;

  @Override
  public Integer call() throws Exception {
    BenchmarkConfig config = validate();
    WalOptions walOptions;
    try {
      walOptions = wal.toWalOptions();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    var err = spec.commandLine().getErr();
    for (String warning : config.warnings()) {
      err.println("bench: warning: " + warning);
    }
    err.flush();
    HistoryRecorder recorder = history == null ? null : HistoryRecorder.open(history, historyLimit);
    BenchmarkResult result;
    HistoryRecorder.Summary recorded = null;
    try {
      result = run(config, recorder, historyKeys == null ? 0 : historyKeys, walOptions);
    } finally {
      if (recorder != null) {
        recorded = recorder.finish();
      }
    }
    var json = result.toJson();
    if (recorded != null) {
      json.addProperty("history_file", history.toString());
      json.addProperty("history_ops", recorded.operations());
      json.addProperty("history_truncated", recorded.truncated());
    }
    spec.commandLine().getOut().println(json);
    spec.commandLine().getOut().flush();
    if (!result.anySucceeded()) {
      err.println("bench: no operation succeeded (" + result.errors() + " errors)"
          + (config.connectTo() != null ? ": is a dbf0 server listening at " + connect + "?" : "")
          + "; exit status 1");
      err.flush();
      return 1;
    }
    return 0;
  }

  private BenchmarkConfig validate() {
    require(serverThreads >= 1, "serverThreads must be at least 1, got " + serverThreads);
    require(clientThreads >= 1, "clientThreads must be at least 1, got " + clientThreads);
    ClientMode mode = Cli.parameter(spec, () -> ClientMode.parse(clientMode));
    if (mode == ClientMode.PER_OP) {
      require(keyLength >= 1 && keyLength <= V1Codec.MAX_LENGTH, "keyLength must be 1..127 in per-op mode (v1), got " + keyLength);
      require(valueLength >= 0 && valueLength <= V1Codec.MAX_LENGTH, "valueLength must be 0..127 in per-op mode (v1), got " + valueLength);
    } else {
      require(keyLength >= 1 && keyLength <= 1 << 16, "keyLength must be 1..65536, got " + keyLength);
      require(valueLength >= 0 && valueLength <= 1 << 20, "valueLength must be 0..1048576, got " + valueLength);
    }
    require(setFraction >= 0 && setFraction <= 1, "setFrac must be between 0 and 1, got " + setFraction);
    int port = listen.port(spec);
    int accept = backlog != null ? backlog
        : mode == ClientMode.PER_OP ? ServerOptions.SEED_BACKLOG : ServerOptions.DEFAULT_BACKLOG;
    require(accept >= 1, "--backlog must be at least 1, got " + accept);
    MapOption.check(spec, mapType);
    int depth = pipeline != null ? pipeline : mode == ClientMode.PIPELINED ? 16 : 1;
    require(depth >= 1 && depth <= 65_536, "--pipeline must be 1..65536, got " + depth);
    require(batch >= 1 && batch <= 100_000, "--batch must be 1..100000, got " + batch);
    require(selectorThreads >= 0 && selectorThreads <= clientThreads,
        "--selector-threads must be 0..clientThreads (" + clientThreads + "), got " + selectorThreads);
    require(selectorThreads == 0 || mode != ClientMode.PER_OP,
        "--selector-threads needs a v2 client mode (persistent, pipelined or batched): per-op opens a connection per operation");
    require(selectorThreads == 0 || !orderPreserving,
        "--selector-threads spreads operations over connections, so it cannot be --order-preserving");
    List<InetSocketAddress> servers = connect == null ? List.of()
        : java.util.Arrays.stream(connect.split(",", -1)).map(this::parseHostPort).toList();
    InetSocketAddress connectTo = servers.isEmpty() ? null : servers.get(0);
    List<InetSocketAddress> shards = servers.size() > 1 || shardedClient ? servers : List.of();
    require(!shardedClient || connectTo != null, "--sharded-client needs --connect");
    require(!libraryClient || !shards.isEmpty(), "--library-client needs several --connect servers or --sharded-client");
    require(shards.isEmpty() || selectorThreads == 0 && !orderPreserving,
        "several --connect servers (or --sharded-client) cannot go with --selector-threads or --order-preserving");
    Duration warm = Cli.parameter(spec, () -> Durations.parse(warmup));
    require(!warm.isNegative(), "--warmup must not be negative");
    KeyValueConnector.CloseOrder order = Cli.parameter(spec, () -> switch (closeOrder) {
      case "client-first" -> KeyValueConnector.CloseOrder.CLIENT_FIRST;
      case "server-first" -> KeyValueConnector.CloseOrder.SERVER_FIRST;
      default -> throw new IllegalArgumentException("--close-order is client-first or server-first, got '" + closeOrder + "'");
    });
    ServerModel model = serverModel.model(spec);
    ClientThreadKind threadKind = Cli.parameter(spec, () -> ClientThreadKind.parse(clientThreadKind));
    require(historyLimit >= 0, "--history-limit must not be negative, got " + historyLimit);
    require(historyKeys == null || historyKeys >= 1, "--history-keys must be at least 1, got " + historyKeys);
    require(historyKeys == null || keyLength >= 4 || historyKeys <= 1 << (8 * keyLength),
        "--history-keys " + historyKeys + " does not fit in " + keyLength + "-byte keys");
    KeyedWorkload keyed = keyedWorkload(mode);
    // Neither sharded load generator (ShardedLoadWorker, LibraryLoadWorker) keeps a FrameHistory: its operations would be missing.
    require(history == null || shards.isEmpty() || mode == ClientMode.PER_OP,
        "--history cannot go with several --connect servers or --sharded-client in a v2 client mode: the sharded "
            + "client's operations are not recorded (per-op mode records them)");
    require(keyed == null || historyKeys == null,
        "--history-keys cannot go with --records or --workload: the keyed workload chooses its own keys");
    return BenchmarkConfig.builder()
        .serverThreads(serverThreads).clientThreads(clientThreads).mapType(mapType)
        .keyLength(keyLength).valueLength(valueLength).setFraction(setFraction).duration(duration)
        .bindHost(listen.bind()).port(port).connectTo(connectTo).seed(seed)
        .serverModel(model).clientMode(mode).closeOrder(order).pipeline(depth).batch(batch).warmup(warm)
        .orderPreserving(orderPreserving).backlog(accept).clientThreadKind(threadKind)
        .selectorThreads(selectorThreads).keyed(keyed).shards(shards)
        .libraryClient(libraryClient).build();
  }

  /** The keyed workload the flags ask for, or null for the seed's random keys. */
  private KeyedWorkload keyedWorkload(ClientMode mode) {
    YcsbWorkload ycsb = workload == null ? null : Cli.parameter(spec, () -> YcsbWorkload.parse(workload));
    if (ycsb == null && records == null) {
      require(keyDist == null, "--key-dist needs --records (or --workload): the records to choose among");
      require(insertFraction == 0, "--insert-frac needs --records (or --workload)");
      return null;
    }
    long count = records != null ? records : YcsbWorkload.DEFAULT_RECORDS;
    require(count >= 1, "--records must be at least 1, got " + count);
    require(ycsb == null || insertFraction == 0, "--workload sets the inserts itself; leave out --insert-frac");
    require(insertFraction >= 0 && insertFraction <= 1, "--insert-frac must be between 0 and 1, got " + insertFraction);
    OperationMix mix = ycsb != null ? ycsb.mix() : Cli.parameter(spec, () -> OperationMix.of(setFraction, insertFraction));
    require(mode != ClientMode.PER_OP || (mix.insert() == 0 && mix.readModifyWrite() == 0),
        "inserts and read-modify-writes need a v2 client mode (persistent, pipelined or batched): "
            + "the per-op (v1) generator only reads and updates");
    String dist = keyDist != null ? keyDist : ycsb != null ? ycsb.keyDistribution() : "uniform";
    KeyDistribution distribution = Cli.parameter(spec,
        () -> new KeyDistribution(dist, zipfTheta, hotspotFraction, hotspotOpsFraction));
    return Cli.parameter(spec, () -> new KeyedWorkload(ycsb == null ? null : ycsb.name(), count, distribution, mix,
        keyLength, valueLength));
  }

  private InetSocketAddress parseHostPort(String text) {
    int colon = text.lastIndexOf(':');
    require(colon > 0, "--connect wants HOST:PORT, got '" + text + "'");
    try {
      return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--connect wants HOST:PORT, got '" + text + "'");
    }
  }

  private void require(boolean condition, String message) {
    Cli.require(spec, condition, message);
  }

  /** Runs one benchmark: starts the server (unless connecting elsewhere), runs the clients, stops. */
  public static BenchmarkResult run(BenchmarkConfig config) throws IOException, InterruptedException {
    return run(config, null, 0, null);
  }

  /**
   * {@link #run(BenchmarkConfig)}, recording every operation into {@code history} (null: none),
   * the server keeping a write-ahead log as {@code wal} says (null: none). {@code historyKeys}
   * above 0 draws the keys from that many fixed keys. The caller finishes the recorder after this
   * returns: every client thread has stopped by then.
   */
  public static BenchmarkResult run(BenchmarkConfig config, HistoryRecorder history, int historyKeys, WalOptions wal)
      throws IOException, InterruptedException {
    KeyValueServer server = null;
    InetSocketAddress address = config.connectTo();
    if (address == null) {
      ServerOptions options = ServerOptions.defaults()
          .withBindAddress(new InetSocketAddress(config.bindHost(), config.port()))
          .withModel(config.serverModel())
          .withThreads(config.serverThreads())
          .withMaxConnections(Math.max(ServerOptions.DEFAULT_MAX_CONNECTIONS, 2 * config.clientThreads()))
          .withBacklog(config.backlog())
          .withDurability(wal);
      Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create(config.mapType());
      if (config.keyed() != null && wal == null) {
        loadDirectly(config.keyed(), map, loaderLog(config, history));
      }
      server = new KeyValueServer(options, map);
      server.start();
      if (config.keyed() != null && wal != null) {
        loadThroughLog(config.keyed(), server.walStore(), loaderLog(config, history));
      }
      address = server.getLocalAddress();
    } else if (config.keyed() != null) {
      loadOverV2(config.keyed(), config.shards().isEmpty() ? List.of(address) : config.shards(),
          loaderLog(config, history));
    }
    try {
      LOG.info("benchmark: {} server threads ({}), {} {} client threads ({}), map {}, key {} B, value {} B, setFrac {}, {} s, server {}",
          config.serverThreads(), config.serverModel().cliName(), config.clientThreads(), config.clientThreadKind().cliName(),
          config.clientMode().cliName(),
          config.mapType(), config.keyLength(), config.valueLength(), config.setFraction(),
          config.duration().toMillis() / 1000.0, address);
      KeySpace space = config.keyed() == null ? null : new KeySpace(config.keyed().records());
      List<LoadWorker> workers = workers(config, address, space, history, historyKeys);
      // A recorder counts everything until told where the interval starts, so the warm-up's operations
      // must be excluded before the clients start, not only once it is over.
      workers.forEach(w -> w.latencies().measureFrom(Long.MAX_VALUE));
      workers.forEach(w -> w.start(config.clientThreadKind().builder()));
      if (!config.warmup().isZero()) {
        Thread.sleep(config.warmup());
      }
      // the log's counters at the start of the measured interval, so the JSON reports that interval only
      WalStats logBefore =
          server != null && server.walStore() != null ? server.walStore().stats() : null;
      long start = System.nanoTime();
      long cpuStart = processCpuNanos();
      workers.forEach(w -> w.latencies().measureFrom(start));
      try {
        Thread.sleep(config.duration());
      } finally {
        workers.forEach(LoadWorker::stop);
        for (LoadWorker w : workers) {
          w.join();
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpuSeconds = cpuStart < 0 ? Double.NaN : (processCpuNanos() - cpuStart) / 1e9;
      KeyValueClientStats stats = new KeyValueClientStats();
      Histogram latencies = new Histogram(3);
      long errors = 0;
      for (LoadWorker w : workers) {
        stats.add(w.stats());
        latencies.add(w.latencies().histogram());
        errors += w.errors();
      }
      LogActivity log = null;
      if (logBefore != null) {
        var p = server.walStore().stats();
        log = LogActivity.between(logBefore, p);
        LOG.info("benchmark: log fsync {}: {} records, {} fsyncs, {} records per fsync, {} bytes",
            p.policy().cliName(), p.recordsWritten(), p.fsyncs(), String.format("%.1f", p.recordsPerFsync()),
            p.logBytes());
      }
      return new BenchmarkResult(stats, seconds, errors, latencies, config, log, cpuSeconds);
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /** CPU time of this whole JVM (every thread) so far, or -1 where the platform cannot say. */
  private static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }

  /**
   * With --history, the load phase's writes go into the history too, as client number
   * {@code clientThreads} (the load threads are 0..clientThreads-1): without them every read of a
   * loaded record would have seen a value nobody wrote, and `dbf0 check` would reject the run.
   * They take from the history's limit like any operation.
   */
  private record LoaderLog(HistoryRecorder.Log log, int client) {
    void set(ByteArrayWrapper key, ByteArrayWrapper value, long invoke, long complete) {
      log.completed(client, HistoryRecorder.Op.SET, key.getArray(), value.getArray(), null, invoke, complete);
    }
  }

  private static LoaderLog loaderLog(BenchmarkConfig config, HistoryRecorder history) {
    return history == null ? null : new LoaderLog(history.log(), config.clientThreads());
  }

  /**
   * The load phase with the server in this JVM: the records go straight into the map before the
   * server starts. Nothing of it is measured, so there is no reason to pay for the protocol, and
   * the map is not yet shared, so even {@code hashmap} is safe to fill from this one thread.
   */
  private static void loadDirectly(KeyedWorkload keyed, Map<ByteArrayWrapper, ByteArrayWrapper> map,
      LoaderLog history) {
    long start = System.nanoTime();
    for (long i = 0; i < keyed.records(); i++) {
      ByteArrayWrapper key = keyed.key(i);
      ByteArrayWrapper value = keyed.value(key);
      if (history != null && history.log().admit()) {
        long invoke = System.nanoTime();
        map.put(key, value);
        history.set(key, value, invoke, System.nanoTime());
      } else {
        map.put(key, value);
      }
    }
    LOG.info("loaded {} records into the map in {} ms", keyed.records(), (System.nanoTime() - start) / 1_000_000);
  }

  /** Writes the log-through load phase submits before it waits for them: well under the log's queue. */
  private static final int LOAD_IN_FLIGHT = 4_096;

  /**
   * The load phase with a write-ahead log: the records go through the log, as a client's writes
   * would, so that the log (and so a restart, a rewrite, a crash test) holds exactly what the map
   * holds. Filling the map behind the log's back would leave records that vanish at the next
   * restart. Writes are submitted {@value #LOAD_IN_FLIGHT} at a time and waited for together, so
   * under {@code --fsync always} they share fsyncs, and under the others one flush writes them.
   */
  private static void loadThroughLog(KeyedWorkload keyed, Store store, LoaderLog history) {
    long start = System.nanoTime();
    List<CompletableFuture<Boolean>> inFlight = new ArrayList<>(LOAD_IN_FLIGHT);
    // for the history: each admitted write and when it was submitted, completed after its join
    record Submitted(ByteArrayWrapper key, ByteArrayWrapper value, long invoke) {}
    List<Submitted> admitted = new ArrayList<>();
    for (long i = 0; i < keyed.records(); i++) {
      ByteArrayWrapper key = keyed.key(i);
      ByteArrayWrapper value = keyed.value(key);
      if (history != null && history.log().admit()) {
        admitted.add(new Submitted(key, value, System.nanoTime()));
      }
      inFlight.add(store.putAsync(key, value));
      if (inFlight.size() == LOAD_IN_FLIGHT || i == keyed.records() - 1) {
        store.flush(); // the log writes what it holds back (interval, never) before they are waited for
        for (CompletableFuture<Boolean> write : inFlight) {
          write.join(); // a disk failure ends the run here, loudly
        }
        long complete = System.nanoTime();
        for (Submitted write : admitted) {
          history.set(write.key(), write.value(), write.invoke(), complete);
        }
        inFlight.clear();
        admitted.clear();
      }
    }
    LOG.info("loaded {} records through the log in {} ms", keyed.records(), (System.nanoTime() - start) / 1_000_000);
  }

  /** Records per frame in the load phase over the network: few round trips, frames well under the limits. */
  private static final int LOAD_BATCH = 1_000;

  /**
   * The load phase against servers elsewhere (--connect): the records go in v2 batches of
   * {@value #LOAD_BATCH} SETs over one connection per server, each batch acknowledged before the
   * next; a batch is split by server and its replies put back in order ({@link ShardedKeyValueClient}).
   */
  private static void loadOverV2(KeyedWorkload keyed, List<InetSocketAddress> servers, LoaderLog history)
      throws IOException {
    long start = System.nanoTime();
    // with several servers each record goes to the one its key is placed on, as the run's clients place it
    try (ShardedKeyValueClient client = ShardedKeyValueClient.connect(servers)) {
      List<Request> batch = new ArrayList<>(LOAD_BATCH);
      int admitted = 0; // the batch's first `admitted` SETs go into the history
      for (long i = 0; i < keyed.records(); i++) {
        ByteArrayWrapper key = keyed.key(i);
        batch.add(new Request.Set(key, keyed.value(key)));
        if (history != null && admitted == batch.size() - 1 && history.log().admit()) {
          admitted++;
        }
        if (batch.size() == LOAD_BATCH || i == keyed.records() - 1) {
          long invoke = System.nanoTime();
          List<Response> replies = client.batch(batch);
          long complete = System.nanoTime();
          for (Response reply : replies) {
            if (!(reply instanceof Response.Ok)) {
              throw new IOException("loading records: the server answered " + reply + " to a SET");
            }
          }
          // every SET of a batch gets the batch's times: the client knows no better
          for (int j = 0; j < admitted; j++) {
            Request.Set set = (Request.Set) batch.get(j);
            history.set(set.key(), set.value(), invoke, complete);
          }
          batch.clear();
          admitted = 0;
        }
      }
    }
    LOG.info("loaded {} records over v2 in {} ms", keyed.records(), (System.nanoTime() - start) / 1_000_000);
  }

  private static List<LoadWorker> workers(BenchmarkConfig config, InetSocketAddress address, KeySpace space,
      HistoryRecorder history, int historyKeys) {
    Random seeds = config.seed() == null ? new Random() : new Random(config.seed());
    List<LoadWorker> workers = new ArrayList<>();
    if (config.selectorThreads() > 0) {
      int firstClient = 0;
      for (int i = 0; i < config.selectorThreads(); i++) {
        // the connections split as evenly as they go: the first (clientThreads mod N) get one more
        int share = config.clientThreads() / config.selectorThreads()
            + (i < config.clientThreads() % config.selectorThreads() ? 1 : 0);
        Random random = new Random(seeds.nextLong());
        var worker = new SelectorLoadWorker("selector-" + i, address, share,
            frames(config, space, historyKeys, i, random, history != null), config.v2Load());
        if (history != null) {
          worker.recordHistory(history.log(), firstClient);
        }
        firstClient += share;
        workers.add(worker);
      }
      return workers;
    }
    // per-op mode with --workload: the workload's update share, not the positional setFrac it replaced
    double updateShare = config.keyed() == null ? config.setFraction() : config.keyed().mix().update();
    for (int i = 0; i < config.clientThreads(); i++) {
      Random random = new Random(seeds.nextLong());
      if (!config.shards().isEmpty() && config.clientMode() != ClientMode.PER_OP) {
        FrameSource shardFrames = frames(config, space, historyKeys, i, random, false);
        workers.add(config.libraryClient()
            ? new LibraryLoadWorker("client-" + i, config.shards(), shardFrames, config.v2Load())
            : new ShardedLoadWorker("client-" + i, config.shards(), shardFrames, config.v2Load()));
        continue;
      }
      if (config.clientMode() == ClientMode.PER_OP) {
        KeyValueSource source = config.keyed() == null
            ? source(config, historyKeys, i, random)
            : tagged(config.keyed().readUpdateSource(space, random), history == null ? null : new WriteTags(i));
        var connector = new KeyValueConnector(address, "client-" + i, updateShare, source,
            KeyValueTracker.noop(), random, config.closeOrder(), config.shards());
        if (history != null) {
          connector.recordHistory(history.log(), i);
        }
        workers.add(perOp(connector));
      } else {
        var worker = new V2LoadWorker("client-" + i, address, frames(config, space, historyKeys, i, random, history != null),
            config.v2Load(), config.orderPreserving());
        if (history != null) {
          worker.recordHistory(history.log(), i);
        }
        workers.add(worker);
      }
    }
    return workers;
  }

  /**
   * One v2 load thread's operations: the seed's random SET/GET, or the keyed workload's, with
   * {@code tagWrites} (--history) each of its written values made unique ({@link WriteTags}).
   */
  private static FrameSource frames(BenchmarkConfig config, KeySpace space, int historyKeys, int id, Random random,
      boolean tagWrites) {
    return config.keyed() == null
        ? FrameSource.seed(source(config, historyKeys, id, random), random, config.setFraction())
        : FrameSource.keyed(config.keyed().generator(space, random), tagWrites ? new WriteTags(id) : null);
  }

  /** {@code source} with every value stamped by {@code tags}; {@code source} itself when that is null. */
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

  private static KeyValueSource source(BenchmarkConfig config, int historyKeys, int id, Random random) {
    return historyKeys > 0
        ? new HistoryKeySource(historyKeys, config.keyLength(), config.valueLength(), id, random)
        : new RandomKeyValueSource(config.keyLength(), config.valueLength(), random);
  }

  private static LoadWorker perOp(KeyValueConnector connector) {
    return new LoadWorker() {
      @Override
      public void start(Thread.Builder builder) {
        connector.start(builder);
      }

      @Override
      public void stop() {
        connector.stop();
      }

      @Override
      public void join() throws InterruptedException {
        connector.join();
      }

      @Override
      public KeyValueClientStats stats() {
        return connector.getStats();
      }

      @Override
      public LatencyRecorder latencies() {
        return connector.getLatencies();
      }

      @Override
      public long errors() {
        return connector.getErrors();
      }
    };
  }
}
