package dbf0.cli;

import dbf0.common.cli.Cli;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.server.WalCliOptions;
import dbf0.kv.storage.MapBackends;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The standalone server: serves until Ctrl-C or SIGTERM, then shuts down cleanly. It is what
 * clients on other hosts (the split Benchmark, the sweep's remote hosts) talk to.
 *
 * <pre>java -jar target/dbf0.jar server --map concurrent --threads 4 --bind 127.0.0.1 --port 9000</pre>
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {"Serves a map over TCP until Ctrl-C or SIGTERM.",
        "Each connection's first byte picks its protocol: v1 (the seed's), v2 (persistent, pipelined, "
            + "batched) or Redis's RESP2, so that redis-cli and redis-benchmark work against it."},
    footer = {"", "Binds to loopback unless --bind says otherwise: to serve other hosts use --bind 0.0.0.0."})
public final class ServeCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--map", defaultValue = "concurrent",
      description = "map backend: hashmap, hashtable, synchronized, concurrent, skiplist, or a Map class name (default: ${DEFAULT-VALUE})")
  String map;

  @Option(names = "--threads", defaultValue = "4", description = "worker threads; 1 = single-threaded (default: ${DEFAULT-VALUE})")
  int threads;

  @Option(names = "--bind", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE})")
  String bind;

  @Option(names = "--port", defaultValue = "9000", description = "port; 0 picks a free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--server-model", defaultValue = "pool", paramLabel = "MODEL",
      description = "pool (fixed thread pool), virtual (a virtual thread per connection) or nio (--threads event loops) (default: ${DEFAULT-VALUE})")
  String serverModel;

  @Option(names = "--max-connections", paramLabel = "N",
      description = "connections beyond this many at once are closed on accept (default: what ulimit -n allows "
          + "less 64 descriptors of headroom, at most 10000)")
  Integer maxConnections;

  @Option(names = "--inline", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "accept RESP inline commands, typed at a telnet prompt (default: on; --no-inline refuses them). "
          + "Lines that look like HTTP always close the connection")
  boolean inline;

  @Option(names = "--backlog", defaultValue = "1024", paramLabel = "N",
      description = "the kernel's queue of connections not yet accepted (default: ${DEFAULT-VALUE}; the seed used 50)")
  int backlog;

  @Option(names = {"--idle-timeout", "--read-timeout"}, defaultValue = "30s", converter = Cli.DurationConverter.class,
      description = "close a connection whose client sends nothing for this long (default: ${DEFAULT-VALUE})")
  Duration idleTimeout;

  @Mixin WalCliOptions wal;

  public static void main(String[] args) {
    Cli.runAndExit(new ServeCommand(), args);
  }

  @Override
  public Integer call() throws Exception {
    if (threads < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be at least 1, got " + threads);
    }
    if (port < 0 || port > 65535) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--port must be 0..65535, got " + port);
    }
    KeyValueServer server;
    ServerModel model;
    try {
      model = ServerModel.parse(serverModel);
      server = new KeyValueServer(ServerOptions.defaults().withBindAddress(new InetSocketAddress(bind, port))
          .withModel(model).withThreads(threads)
          .withMaxConnections(maxConnections != null ? maxConnections : ServerOptions.DEFAULT_MAX_CONNECTIONS)
          .withIdleTimeout(idleTimeout).withBacklog(backlog).withInlineCommands(inline)
          .withDurability(wal.toWalOptions()),
          MapBackends.create(map));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    try {
      server.start();
    } catch (dbf0.kv.storage.wal.CorruptLogException e) {
      spec.commandLine().getErr().printf("dbf0 server: not started: %s%n", e.getMessage());
      return 1;
    }
    PrintWriter out = spec.commandLine().getOut();
    if (server.durableStore() != null) {
      out.printf("dbf0 server: %s; fsync %s%n", server.durableStore().recovery().summary(),
          server.durableStore().options().fsync().cliName());
    }
    out.printf("dbf0 server listening on %s (map %s, %s model, %d threads); Ctrl-C to stop%n",
        server.getLocalAddress(), map, model.cliName(), threads);
    out.flush();

    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      server.close();
      out.printf("dbf0 server stopped after %,d connections (%,d dropped for errors); map held %,d entries%n",
          server.getConnectionsHandled(), server.getConnectionsFailed(), server.size());
      out.flush();
      stopped.countDown();
    }, "shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    // A server that failed as a whole (an event loop died) has closed itself: exit non-zero
    // rather than linger half alive.
    server.failure().thenRun(stopped::countDown);
    stopped.await();
    Throwable failure = server.failure().getNow(null);
    if (failure != null) {
      spec.commandLine().getErr().printf("dbf0 server failed: %s%n", failure);
      return 1;
    }
    return 0;
  }
}
