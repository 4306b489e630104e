package dbf0.cli;

import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.common.cli.CliPaths;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.nemesis.NemesisOptions;
import dbf0.kv.nemesis.NemesisWorkload;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dbf0 nemesis-client}: the clients of a nemesis campaign (scripts/nemesis.py starts it, and
 * injects the faults meanwhile). Two JSON lines on stdout: {@code started} with the clock's reading
 * as the clients start, and {@code done} with what they saw and the keys' final values.
 */
@Command(
        name = "nemesis-client",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Reads and writes a few keys of a replicated cluster from several clients over RESP,"
                    + " as a Redis Cluster client does (following MOVED, trying again after"
                    + " CLUSTERDOWN), while scripts/nemesis.py injects faults; then reads every"
                    + " key once more. Records every operation as a history for dbf0 check: an"
                    + " operation whose outcome is unknown (a timeout, a lost connection,"
                    + " TRYAGAIN) is pending.",
            "Prints two JSON lines: {\"event\":\"started\",\"monotonic_ns\":...} as the clients"
                    + " start, and {\"event\":\"done\",...} at the end (docs/formats.md)."
        },
        footer = {
            "",
            "Example:  dbf0 nemesis-client --cluster-nodes 127.0.0.1:7001,127.0.0.1:7002,"
                    + "127.0.0.1:7003 --cluster-replicas 2 --duration 10s --history /tmp/h.jsonl",
            "Exit status: 0 when every key got its final read, 1 when some did not within"
                    + " --final-within, 2 for bad arguments."
        })
public final class NemesisClientCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--cluster-nodes",
            required = true,
            paramLabel = "HOST:PORT,...",
            description = "the cluster's nodes, as the servers were given them")
    String clusterNodes;

    @Option(
            names = "--cluster-replicas",
            defaultValue = "2",
            paramLabel = "R",
            description = "as the servers were given it (default: ${DEFAULT-VALUE})")
    int replicas;

    @Option(
            names = "--clients",
            defaultValue = "4",
            paramLabel = "N",
            description =
                    "client threads, each with its own connections (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(
            names = "--keys",
            defaultValue = "16",
            paramLabel = "N",
            description =
                    "keys they share, spread evenly over the shards (default: ${DEFAULT-VALUE})")
    int keys;

    @Option(
            names = "--write-fraction",
            defaultValue = "0.5",
            paramLabel = "F",
            description = "the share of SETs; the rest are GETs (default: ${DEFAULT-VALUE})")
    double writeFraction;

    @Option(
            names = "--once-fraction",
            defaultValue = "0.1",
            paramLabel = "F",
            description =
                    "the share of SETs that write a key of their own, never written again, each"
                            + " read back at the end: a lost write then shows even where later"
                            + " writes to the shared keys hide it (default: ${DEFAULT-VALUE})")
    double onceFraction;

    @Option(
            names = "--duration",
            defaultValue = "30s",
            converter = Cli.DurationConverter.class,
            description = "how long the clients run (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--reply-timeout",
            defaultValue = "1s",
            converter = Cli.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "a command unanswered this long is pending and its connection closed"
                            + " (default: ${DEFAULT-VALUE})")
    Duration replyTimeout;

    @Option(
            names = "--retry-for",
            defaultValue = "2s",
            converter = Cli.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "an operation refused (MOVED, CLUSTERDOWN, no connection) is sent again for"
                            + " this long, then recorded as failed (default: ${DEFAULT-VALUE})")
    Duration retryFor;

    @Option(
            names = "--think",
            defaultValue = "0ms",
            converter = Cli.DurationOrZeroConverter.class,
            paramLabel = "DURATION",
            description = "each client's pause after each operation (default: ${DEFAULT-VALUE})")
    Duration think;

    @Option(
            names = "--final-within",
            defaultValue = "60s",
            converter = Cli.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "how long the final reads of every key may take (default: ${DEFAULT-VALUE})")
    Duration finalWithin;

    @Option(names = "--seed", paramLabel = "N", description = "random seed (default: random)")
    Long seed;

    @Option(
            names = "--history",
            required = true,
            paramLabel = "FILE",
            description = "where the history goes (dbf0's JSON Lines, for dbf0 check)")
    Path history;

    public static void main(String[] args) {
        Cli.runAndExit(new NemesisClientCommand(), args);
    }

    @Override
    public Integer call() throws Exception {
        List<ClusterNode> nodes = Cli.parameter(spec, () -> ClusterNode.parseList(clusterNodes));
        Shards shards = Cli.parameter(spec, () -> new Shards(nodes.size(), replicas));
        Cli.require(
                spec,
                keys >= shards.count(),
                "--keys must be at least the number of shards, " + shards.count());
        CliPaths.file(spec, "--history", history);
        NemesisOptions options =
                Cli.parameter(
                        spec,
                        () ->
                                new NemesisOptions(
                                        nodes,
                                        shards,
                                        clients,
                                        keys,
                                        writeFraction,
                                        onceFraction,
                                        duration,
                                        replyTimeout,
                                        retryFor,
                                        think,
                                        finalWithin,
                                        seed != null
                                                ? seed
                                                : ThreadLocalRandom.current().nextLong(),
                                        history));
        PrintWriter out = spec.commandLine().getOut();
        NemesisWorkload.Report report =
                NemesisWorkload.run(
                        options,
                        now -> {
                            out.println("{\"event\":\"started\",\"monotonic_ns\":" + now + "}");
                            out.flush();
                        });
        out.println(report.toJson());
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.printf(
                "%s: %s acknowledged, %s pending, %s of %s found missing at the end, %s in"
                        + " the history (%s)%n",
                Cli.name(spec),
                Words.count(report.tally().okWrites(), "write"),
                Words.count(report.tally().pendingWrites(), "write"),
                report.once().lost(),
                Words.count(report.once().acknowledged(), "write-once key"),
                Words.count(report.operations(), "operation"),
                history);
        err.flush();
        if (!report.complete()) {
            Cli.error(
                    spec,
                    Words.count(
                                    report.keys().size()
                                            - report.finalValues().size()
                                            + report.once().unread(),
                                    "key was",
                                    "keys were")
                            + " not read back within "
                            + finalWithin.toSeconds()
                            + " s: the cluster did not come back");
            return Cli.EXIT_FAILURE;
        }
        return Cli.EXIT_OK;
    }
}
