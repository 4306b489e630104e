package dbf0.kv.bench.resp;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import dbf0.common.cli.Cli;
import dbf0.common.cli.ErrorText;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A RESP load generator: {@code --connections} connections, each sending {@code --pipeline}
 * operations at a time for {@code --duration}, then one JSON object on stdout. What it adds to
 * redis-benchmark is {@code --wait-replicas N}: every SET is followed by {@code WAIT N 0}, so that
 * it counts as done only once N replicas have acknowledged it, the closest Redis comes to a
 * synchronous copy. Against dbf0 no WAIT is needed: a replicated shard acknowledges a write once a
 * majority holds it.
 */
@Command(
        name = "resp-load",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Loads a RESP server (Redis or dbf0) with SETs or GETs from many pipelined connections"
                    + " for a while, then prints one JSON object on stdout (ops, seconds,"
                    + " ops_per_sec, p50_ms, p99_ms, p999_ms, max_ms, errors, wait_short and the"
                    + " settings) and one line for people on stderr.",
            "--wait-replicas N follows every SET with WAIT N 0 (Redis): an operation is done when"
                    + " the WAIT answers, and wait_short counts WAITs that saw fewer than N"
                    + " replicas.",
            "Exit status: 0 when operations completed, 1 when a connection failed or none"
                    + " completed, 2 for bad arguments."
        },
        footer = {
            "",
            "Examples:",
            "  dbf0 resp-load --port 6379 --connections 50 --pipeline 16 --duration 10s",
            "  dbf0 resp-load --port 6379 --wait-replicas 1        # Redis: SET, then WAIT 1 0"
        })
public final class RespLoad implements Callable<Integer> {

    private static final int MAX_PIPELINE = 10_000;
    private static final int MAX_VALUE = 1 << 20;
    private static final long MAX_KEYSPACE = 1_000_000_000_000L; // 12 digits, as in key:%012d

    @Spec CommandSpec spec;

    @Option(
            names = "--host",
            defaultValue = "127.0.0.1",
            description = "server address (default: ${DEFAULT-VALUE})")
    String host;

    @Option(
            names = "--port",
            defaultValue = "6379",
            description = "server port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
            names = {"-c", "--connections"},
            defaultValue = "50",
            description = "connections, a thread each (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(
            names = {"-P", "--pipeline"},
            defaultValue = "1",
            description =
                    "operations sent at a time on each connection (default: ${DEFAULT-VALUE})")
    int pipeline;

    @Option(
            names = {"-t", "--command"},
            defaultValue = "set",
            description = "set or get (default: ${DEFAULT-VALUE})")
    String command;

    @Option(
            names = "--wait-replicas",
            paramLabel = "N",
            defaultValue = "0",
            description = "follow every SET with WAIT N 0 (default: ${DEFAULT-VALUE}, no WAIT)")
    int waitReplicas;

    @Option(
            names = "--duration",
            defaultValue = "10s",
            converter = Cli.DurationConverter.class,
            description = "how long to measure (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--warmup",
            defaultValue = "0",
            converter = Cli.DurationOrZeroConverter.class,
            description =
                    "load first for this long without counting, on the same connections"
                            + " (default: ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(
            names = {"-d", "--value-size"},
            defaultValue = "64",
            description = "bytes per value, as redis-benchmark -d (default: ${DEFAULT-VALUE})")
    int valueSize;

    @Option(
            names = {"-r", "--keyspace"},
            defaultValue = "100000",
            description =
                    "keys drawn uniformly from key:000000000000 up to this many, as"
                            + " redis-benchmark -r (default: ${DEFAULT-VALUE})")
    long keyspace;

    @Option(
            names = "--timeout",
            defaultValue = "30s",
            converter = Cli.DurationConverter.class,
            description =
                    "give up on a connection that gets no reply for this long"
                            + " (default: ${DEFAULT-VALUE})")
    Duration timeout;

    public static void main(String[] args) {
        Cli.runAndExit(new RespLoad(), args);
    }

    @Override
    public Integer call() throws InterruptedException {
        LoadRequests.Operation operation = validate();
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new Cli.Failure(
                    "cannot connect to " + ErrorText.address(address) + ": unknown host");
        }
        long measureFrom = System.nanoTime() + warmup.toNanos();
        long end = measureFrom + duration.toNanos();
        SplittableRandom seeds = new SplittableRandom();
        List<LoadConnection> loads = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            LoadRequests requests =
                    new LoadRequests(
                            operation, pipeline, keyspace, valueSize, waitReplicas, seeds.split());
            LoadConnection load =
                    new LoadConnection(
                            address,
                            requests,
                            pipeline,
                            waitReplicas,
                            measureFrom,
                            end,
                            (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            loads.add(load);
            threads.add(Thread.ofPlatform().name("resp-load-" + i).start(load));
        }
        for (Thread t : threads) {
            t.join();
        }
        failIfAnyFailed(address, loads);
        RespLoadResult result = RespLoadResult.of(loads, measureFrom);
        PrintWriter out = spec.commandLine().getOut();
        out.println(new Gson().toJson(result.toJson(settings(operation))));
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println(Cli.name(spec) + ": " + result.summary());
        err.flush();
        if (result.operations() == 0) {
            throw new Cli.Failure(ErrorText.address(address) + ": no operation completed");
        }
        return Cli.EXIT_OK;
    }

    private LoadRequests.Operation validate() {
        Cli.require(spec, port >= 1 && port <= 65535, "--port must be 1..65535, got " + port);
        Cli.require(
                spec,
                connections >= 1 && connections <= 10_000,
                "--connections must be 1..10000, got " + connections);
        Cli.require(
                spec,
                pipeline >= 1 && pipeline <= MAX_PIPELINE,
                "--pipeline must be 1.." + MAX_PIPELINE + ", got " + pipeline);
        Cli.require(
                spec,
                valueSize >= 0 && valueSize <= MAX_VALUE,
                "--value-size must be 0.." + MAX_VALUE + ", got " + valueSize);
        Cli.require(
                spec,
                keyspace >= 1 && keyspace <= MAX_KEYSPACE,
                "--keyspace must be 1.." + MAX_KEYSPACE + ", got " + keyspace);
        Cli.require(
                spec, waitReplicas >= 0, "--wait-replicas must be 0 or more, got " + waitReplicas);
        LoadRequests.Operation operation =
                Cli.parameter(
                        spec,
                        () -> {
                            try {
                                return LoadRequests.Operation.valueOf(
                                        command.toUpperCase(Locale.ROOT));
                            } catch (IllegalArgumentException e) {
                                throw new IllegalArgumentException(
                                        "--command is set or get, got " + command);
                            }
                        });
        Cli.require(
                spec,
                waitReplicas == 0 || operation == LoadRequests.Operation.SET,
                "--wait-replicas follows writes: it needs --command set");
        return operation;
    }

    /** A connection that failed makes the figures suspect: one line naming the first failure. */
    private static void failIfAnyFailed(InetSocketAddress address, List<LoadConnection> loads) {
        long failed = loads.stream().filter(l -> l.failure != null).count();
        if (failed > 0) {
            LoadConnection first =
                    loads.stream().filter(l -> l.failure != null).findFirst().orElseThrow();
            throw new Cli.Failure(
                    String.format(
                            Locale.ROOT,
                            "%s: %d of %d connections failed; the first: %s",
                            ErrorText.address(address),
                            failed,
                            loads.size(),
                            ErrorText.of(first.failure)),
                    first.failure);
        }
    }

    private JsonObject settings(LoadRequests.Operation operation) {
        JsonObject s = new JsonObject();
        s.addProperty("command", operation.name());
        s.addProperty("connections", connections);
        s.addProperty("pipeline", pipeline);
        s.addProperty("wait_replicas", waitReplicas);
        s.addProperty("value_size", valueSize);
        s.addProperty("keyspace", keyspace);
        s.addProperty("warmup_seconds", warmup.toMillis() / 1e3);
        return s;
    }
}
