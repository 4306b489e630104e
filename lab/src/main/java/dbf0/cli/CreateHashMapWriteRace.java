package dbf0.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.options.MapOption;
import dbf0.kv.race.WriteRace;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The seed's write-race exercise as a program: several writers put distinct keys into one map at
 * once, for each map in turn, and the program reports what went wrong.
 *
 * <pre>
 *   java -jar target/dbf0.jar write-race
 *   java -cp target/dbf0.jar dbf0.cli.CreateHashMapWriteRace --maps hashmap --threads 8 --json
 * </pre>
 */
@Command(
        name = "write-race",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Several threads write distinct keys into one map at once, then it counts what is"
                    + " there.",
            "HashMap loses entries and miscounts its size; Hashtable and ConcurrentHashMap do not."
        },
        footer = {"", "Main class: dbf0.cli.CreateHashMapWriteRace"})
public final class CreateHashMapWriteRace implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--maps",
            split = ",",
            defaultValue = "hashmap,hashtable,concurrent",
            description = "maps to try, comma-separated (default: ${DEFAULT-VALUE})")
    List<String> maps;

    @Option(
            names = "--threads",
            defaultValue = "4",
            description = "writer threads (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--keys",
            defaultValue = "250000",
            description = "distinct keys per thread (default: ${DEFAULT-VALUE})")
    int keysPerThread;

    @Option(
            names = "--rounds",
            defaultValue = "3",
            description = "runs per map (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
            names = "--time-limit",
            defaultValue = "10s",
            converter = Cli.DurationConverter.class,
            description =
                    "how long to wait for the writers of one run, and again for the count"
                            + " afterwards; a thread still busy then is reported as stuck in a"
                            + " corrupted bin (default: ${DEFAULT-VALUE})")
    Duration timeLimit;

    @Option(names = "--json", description = "print one JSON object on stdout instead of the table")
    boolean json;

    public static void main(String[] args) {
        Cli.runAndExit(new CreateHashMapWriteRace(), args);
    }

    @Override
    public Integer call() throws Exception {
        Cli.require(
                spec,
                threads >= 2 && keysPerThread >= 1 && rounds >= 1,
                "--threads must be at least 2 (a race needs two), --keys and --rounds at least 1");
        for (String m : maps) {
            MapOption.check(spec, m);
        }
        PrintWriter out = spec.commandLine().getOut();
        JsonArray results = new JsonArray();
        if (!json) {
            out.printf(
                    "%d threads each put %,d distinct keys into one map at the same time (%s per"
                            + " map).%n%n",
                    threads, keysPerThread, Words.count(rounds, "round"));
            out.printf(
                    "%-12s %5s %11s %11s %11s %11s  %s%n",
                    "map",
                    "round",
                    "expected",
                    "size()",
                    "iterated",
                    "keys lost",
                    "exceptions / stuck threads");
        }
        boolean hashMapWentWrong = false;
        for (String m : maps) {
            for (int r = 1; r <= rounds; r++) {
                WriteRace.Result res =
                        WriteRace.run(m, threads, keysPerThread, timeLimit.toMillis());
                hashMapWentWrong |= res.anomalous();
                results.add(toJson(res, r));
                if (!json) {
                    out.printf(
                            "%-12s %5d %,11d %,11d %11s %11s  %s%n",
                            m,
                            r,
                            res.expected(),
                            res.size(),
                            count(res.entriesIterated()),
                            count(res.keysMissing()),
                            problems(res));
                    out.flush();
                }
            }
        }
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("threads", threads);
            o.addProperty("keys_per_thread", keysPerThread);
            o.add("results", results);
            out.println(o);
        } else {
            out.println();
            out.println(
                    hashMapWentWrong
                            ? "Every row should read expected = size() = iterated with 0 keys lost."
                                  + " The rows that do not are races:\n"
                                  + "two puts into the same bin, or a put during a resize, and one"
                                  + " write overwrites the other's work.\n"
                                  + "size() is a plain counter incremented without a lock, so it"
                                  + " drifts from the real entry count too."
                            : "Every map held every key this time. With HashMap that is luck: run"
                                    + " it again, or with more --keys.");
        }
        out.flush();
        return 0;
    }

    private static String count(long n) {
        return n < 0 ? "n/a" : String.format("%,d", n);
    }

    private static String problems(WriteRace.Result res) {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<String, Long> e : res.exceptions().entrySet()) {
            s.append(s.isEmpty() ? "" : "; ").append(e.getValue()).append("x ").append(e.getKey());
        }
        if (res.stuckThreads() > 0) {
            s.append(s.isEmpty() ? "" : "; ")
                    .append(Words.count(res.stuckThreads(), "thread"))
                    .append(" stuck in a corrupted bin");
        }
        return s.isEmpty() ? "-" : s.toString();
    }

    private static JsonObject toJson(WriteRace.Result res, int round) {
        JsonObject o = new JsonObject();
        o.addProperty("map_type", res.mapType());
        o.addProperty("round", round);
        o.addProperty("expected", res.expected());
        o.addProperty("size", res.size());
        o.addProperty("entries_iterated", res.entriesIterated());
        o.addProperty("keys_missing", res.keysMissing());
        o.addProperty("stuck_threads", res.stuckThreads());
        JsonObject ex = new JsonObject();
        res.exceptions().forEach(ex::addProperty);
        o.add("exceptions", ex);
        o.addProperty("anomalous", res.anomalous());
        return o;
    }
}
