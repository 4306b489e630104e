package dbf0.cli;

import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.options.HistoryOptions;
import dbf0.kv.bench.options.MapOption;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.race.RaceExperiment;
import dbf0.kv.race.RaceReport;
import dbf0.kv.storage.MapBackends;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The seed's race demo: a multi-threaded server over a {@link java.util.HashMap} loses sight of
 * keys while the map resizes; the same run over Hashtable or ConcurrentHashMap never does.
 *
 * <pre>
 *   java -jar target/dbf0.jar race                      # hashmap, 30 s
 *   java -jar target/dbf0.jar race --map concurrent --duration 15
 *   java -cp target/dbf0.jar dbf0.cli.CreateHashMapRaceCondition --json
 * </pre>
 */
@Command(
        name = "race",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Shows a HashMap losing keys under concurrent access, and Hashtable/ConcurrentHashMap"
                    + " not.",
            "A 4-thread server runs over the chosen map; writers flood it with new keys so it keeps"
                    + " resizing; checkers read 256 one-byte keys they have already seen stored and"
                    + " count every GET that comes back empty. Prints progress every 500 ms and a"
                    + " summary at the end, with the time to the first miss.",
            "On hashmap the load stays on past --duration until the first miss (at most"
                    + " --give-up-after), so every run shows the race."
        },
        footer = {"", "Main class: dbf0.cli.CreateHashMapRaceCondition"})
public final class CreateHashMapRaceCondition implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin MapOption map = new MapOption("hashmap");

    @Option(
            names = "--duration",
            defaultValue = "30s",
            converter = Cli.DurationConverter.class,
            description = "how long to run: seconds or ISO-8601 (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--server-threads",
            defaultValue = "4",
            description = "server worker threads (default: ${DEFAULT-VALUE})")
    int serverThreads;

    @Option(
            names = "--checkers",
            defaultValue = "2",
            description = "checker threads (default: ${DEFAULT-VALUE})")
    int checkers;

    @Option(
            names = "--writers",
            defaultValue = "2",
            description = "writer threads (default: ${DEFAULT-VALUE})")
    int writers;

    @Option(
            names = "--stop-at-first-miss",
            description = "end the run at the first missing key, even before --duration")
    boolean stopAtFirstMiss;

    @Option(
            names = "--give-up-after",
            defaultValue = "120s",
            converter = Cli.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "a thread-unsafe map that has shown no miss after --duration keeps the load on"
                        + " until the first miss, then stops; it gives up at this time since the"
                        + " start (default: ${DEFAULT-VALUE}). Thread-safe maps always run for"
                        + " --duration.")
    Duration giveUpAfter;

    @Option(
            names = "--json",
            description = "print one JSON object on stdout at the end (progress goes to stderr)")
    boolean json;

    @Option(names = "--seed", description = "random seed (default: a new one each run)")
    Long seed;

    @Mixin HistoryOptions history = new HistoryOptions();

    /** What the history shows, in one sentence; printed with every --history run. */
    public static final String DEFINITION =
            "A history is linearizable when every operation appears to take effect at one instant"
                + " between its call and its return; a GET that misses a key a previous GET found,"
                + " with no delete between, cannot be placed so.";

    public static void main(String[] args) {
        Cli.runAndExit(new CreateHashMapRaceCondition(), args);
    }

    @Override
    public Integer call() throws Exception {
        String mapType = map.validated(spec);
        Cli.require(
                spec,
                serverThreads >= 1 && checkers >= 1 && writers >= 0,
                "--server-threads and --checkers must be at least 1, --writers at least 0");
        // before the first line of output: a file that cannot be made is the one line printed
        HistoryRecorder recorder = history.open(spec);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = json ? spec.commandLine().getErr() : out;
        progress.printf(
                "Race demo: map '%s'%s, %s, %s, %s, %.1f s%n",
                mapType,
                MapBackends.isThreadSafe(mapType) ? "" : " (not thread-safe)",
                Words.count(serverThreads, "server thread"),
                Words.count(checkers, "checker"),
                Words.count(writers, "writer"),
                duration.toMillis() / 1000.0);
        progress.flush();
        var config =
                RaceExperiment.Config.builder(mapType, duration)
                        .serverThreads(serverThreads)
                        .checkers(checkers)
                        .writers(writers)
                        .stopAtFirstMiss(stopAtFirstMiss)
                        .progress(
                                Duration.ofMillis(500),
                                line -> {
                                    progress.println(line);
                                    progress.flush();
                                })
                        .seed(seed == null ? System.nanoTime() : seed)
                        .giveUpAfter(giveUpAfter);
        RaceReport report;
        HistoryRecorder.Summary recorded = null;
        try {
            report = RaceExperiment.run(config.history(recorder).build());
        } finally {
            if (recorder != null) {
                recorded = recorder.finish();
            }
        }
        progress.print(report.toText());
        if (recorded != null) {
            progress.printf(
                    "History: %,d operations written to %s%s.%n",
                    recorded.operations(),
                    history.file(),
                    recorded.truncated()
                            ? " (--history-limit reached: the run went on unrecorded)"
                            : "");
            progress.println(DEFINITION);
            progress.println("Check it: dbf0 check " + history.file());
        }
        progress.flush();
        if (json) {
            out.println(report.toJson());
            out.flush();
        }
        return 0;
    }
}
