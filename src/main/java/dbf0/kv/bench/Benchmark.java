package dbf0.kv.bench;

import dbf0.base.SleepingClient;
import dbf0.cli.Cli;
import dbf0.kv.client.KeyValueConnector;
import dbf0.kv.protocol.PrefixIo;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.MapBackends;
import dbf0.kv.workload.KeyValueTracker;
import dbf0.kv.workload.RandomKeyValueSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The seed's benchmark harness: a server and {@code clientThreads} load generators in one JVM on
 * loopback, run for a duration, then exactly one JSON object on stdout (logs go to stderr).
 *
 * <pre>
 *   java -jar target/dbf0.jar bench 4 8 concurrent 16 64 0.1 PT10S
 *   java -cp target/dbf0.jar dbf0.kv.bench.Benchmark 4 8 concurrent 16 64 0.1 PT10S
 *   {"set":46012,"get":414833,"found":0,"missingKey":0,"errors":0,"seconds":10.002,"ops_per_sec":46076.3}
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
        "Runs a v1 key/value server and load-generating clients on loopback for a while,",
        "then prints one JSON object: set, get, found, missingKey, errors, seconds, ops_per_sec."},
    footer = {
        "",
        "Examples:",
        "  dbf0 bench 4 8 concurrent 16 64 0.1 PT10S      read-heavy, 4 server / 8 client threads",
        "  dbf0 bench 1 1 hashtable 1 64 0.9 PT5S --port 9000",
        "  dbf0 server --port 9000 &   dbf0 bench 4 8 concurrent 16 64 0.5 PT10S --connect host:9000"})
public final class Benchmark implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(Benchmark.class);

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "serverThreads", description = "server worker threads (1 = single-threaded)")
  int serverThreads;

  @Parameters(index = "1", paramLabel = "clientThreads", description = "client threads, each a connector")
  int clientThreads;

  @Parameters(index = "2", paramLabel = "mapType",
      description = "hashmap, hashtable, synchronized, concurrent, skiplist, or a Map class name")
  String mapType;

  @Parameters(index = "3", paramLabel = "keyLength", description = "bytes per random key, 1..127 (1 = 256 keys)")
  int keyLength;

  @Parameters(index = "4", paramLabel = "valueLength", description = "bytes per value, 0..127")
  int valueLength;

  @Parameters(index = "5", paramLabel = "setFrac", description = "fraction of operations that are SETs, 0..1")
  double setFraction;

  @Parameters(index = "6", paramLabel = "duration", converter = Cli.DurationConverter.class,
      description = "how long to run: ISO-8601 (PT10S) or seconds")
  Duration duration;

  @Option(names = "--port", defaultValue = "0", description = "server port; 0 (default) picks a free one")
  int port;

  @Option(names = "--bind", defaultValue = "127.0.0.1", description = "server bind address (default: ${DEFAULT-VALUE})")
  String bindHost;

  @Option(names = "--connect", paramLabel = "HOST:PORT",
      description = "run only the clients, against a server started elsewhere with `dbf0 server`")
  String connect;

  @Option(names = "--seed", description = "seed for the clients' random keys (default: a new one each run)")
  Long seed;

  public static void main(String[] args) {
    Cli.runAndExit(new Benchmark(), args);
  }

  @Override
  public Integer call() throws Exception {
    BenchmarkConfig config = validate();
    BenchmarkResult result = run(config);
    spec.commandLine().getOut().println(result.toJson());
    spec.commandLine().getOut().flush();
    return 0;
  }

  private BenchmarkConfig validate() {
    require(serverThreads >= 1, "serverThreads must be at least 1, got " + serverThreads);
    require(clientThreads >= 1, "clientThreads must be at least 1, got " + clientThreads);
    require(keyLength >= 1 && keyLength <= PrefixIo.MAX_LENGTH, "keyLength must be 1..127, got " + keyLength);
    require(valueLength >= 0 && valueLength <= PrefixIo.MAX_LENGTH, "valueLength must be 0..127, got " + valueLength);
    require(setFraction >= 0 && setFraction <= 1, "setFrac must be between 0 and 1, got " + setFraction);
    require(port >= 0 && port <= 65535, "port must be 0..65535, got " + port);
    try {
      MapBackends.validate(mapType);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    InetSocketAddress connectTo = connect == null ? null : parseHostPort(connect);
    return new BenchmarkConfig(serverThreads, clientThreads, mapType, keyLength, valueLength, setFraction,
        duration, bindHost, port, connectTo, seed);
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
    if (!condition) {
      throw new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  /** Runs one benchmark: starts the server (unless connecting elsewhere), runs the clients, stops. */
  public static BenchmarkResult run(BenchmarkConfig config) throws IOException, InterruptedException {
    KeyValueServer server = null;
    InetSocketAddress address = config.connectTo();
    if (address == null) {
      server = new KeyValueServer(new InetSocketAddress(config.bindHost(), config.port()), config.serverThreads(),
          MapBackends.create(config.mapType()));
      server.start();
      address = server.getLocalAddress();
    }
    try {
      LOG.info("benchmark: {} server threads, {} client threads, map {}, key {} B, value {} B, setFrac {}, {} s, server {}",
          config.serverThreads(), config.clientThreads(), config.mapType(), config.keyLength(), config.valueLength(),
          config.setFraction(), config.duration().toMillis() / 1000.0, address);
      Random seeds = config.seed() == null ? new Random() : new Random(config.seed());
      List<KeyValueConnector> connectors = new ArrayList<>();
      for (int i = 0; i < config.clientThreads(); i++) {
        Random random = new Random(seeds.nextLong());
        connectors.add(new KeyValueConnector(address, "client-" + i, config.setFraction(),
            new RandomKeyValueSource(config.keyLength(), config.valueLength(), random), KeyValueTracker.noop(), random));
      }
      SleepingClient<KeyValueConnector> client = new SleepingClient<>(connectors, config.duration());
      long start = System.nanoTime();
      client.run();
      double seconds = (System.nanoTime() - start) / 1e9;
      var stats = new dbf0.kv.client.KeyValueClientStats();
      connectors.forEach(c -> stats.add(c.getStats()));
      return new BenchmarkResult(stats, seconds, client.totalErrors());
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }
}
