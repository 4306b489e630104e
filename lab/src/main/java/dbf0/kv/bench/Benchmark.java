package dbf0.kv.bench;

import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.WalOptions;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The seed's benchmark harness: a server and {@code clientThreads} connectors in one JVM on
 * loopback, run for a duration, then exactly one JSON object on stdout (logs go to stderr).
 *
 * <pre>
 *   java -jar target/dbf0.jar bench 4 8 concurrent 16 64 0.1 PT10S
 *   java -cp target/dbf0.jar dbf0.kv.bench.Benchmark 4 8 concurrent 16 64 0.1 PT10S
 *   {"set":11092,"get":98348,"found":0,"missingKey":0,"errors":0,"seconds":10.004,
 *    "ops_per_sec":10939.4,"p50_us":80,"p90_us":110,"p99_us":180,"p999_us":900,
 *    "max_us":12000,"server_model":"pool",...}
 * </pre>
 *
 * <p>The parts: {@link BenchmarkOptions} (the arguments), {@link BenchmarkValidation} (their
 * checks), {@link BenchmarkRun} (the phases), {@link LoadPhase}, {@link ConnectorFactory} (one
 * connector per client thread, by client mode), {@link ProcessCpu} and {@link BenchmarkResult}.
 * Errors and exit codes are every command's ({@link Cli}).
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Measures a dbf0 server under load for a while and prints the result as one JSON"
                    + " object on stdout, and in one line for people on stderr.",
            "The server (v1 and v2 on one port) and the load-generating clients run in this JVM on"
                + " loopback, or only the clients run, against --connect. The JSON holds set, get,"
                + " found, missingKey, errors, seconds, ops_per_sec, latency percentiles in"
                + " microseconds (p50_us, p90_us, p99_us, p999_us, max_us), the modes, and warnings"
                + " about the setup when there are any; with --records or --workload also insert,"
                + " read_modify_write and the keyed settings (records, key_dist, zipf_theta,"
                + " hotspot_fraction, hotspot_ops_fraction, insert_frac, workload, read_frac,"
                + " update_frac, rmw_frac, load); with --data-dir what the log did in the measured"
                + " interval (fsync, wal_records, wal_fsyncs, wal_records_forced,"
                + " wal_fsyncs_per_sec, wal_records_per_fsync).",
            "Exit status: 0 when operations succeeded, 1 when none did or a --connect server"
                    + " cannot be reached, 2 for bad arguments."
        },
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
            "    dbf0 bench 2 4 concurrent 16 64 0.5 10s --client-mode batched --batch 1000 "
                    + "--records 100000 --key-dist zipfian",
            "  YCSB's workload A (50/50 read/update, zipfian, 100,000 records):",
            "    dbf0 bench 2 4 concurrent 16 64 0.5 10s --client-mode persistent "
                    + "--server-model nio --workload A"
        })
public final class Benchmark implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin BenchmarkOptions options = new BenchmarkOptions();

    public static void main(String[] args) {
        Cli.runAndExit(new Benchmark(), args);
    }

    @Override
    public Integer call() throws Exception {
        BenchmarkConfig config = BenchmarkValidation.validate(options, spec);
        LsmOptions lsm = options.store.toLsmOptions(spec, options.wal, null);
        BTreeOptions btree = options.store.toBTreeOptions(spec, options.wal, null);
        if ((lsm != null || btree != null) && config.connectTo() != null) {
            throw Cli.usage(
                    spec,
                    "--store "
                            + options.store.kind(spec)
                            + " picks the store of the server bench starts; with --connect the"
                            + " server elsewhere has its own");
        }
        WalOptions walOptions =
                lsm != null || btree != null ? null : options.wal.toWalOptions(spec);
        for (String warning : config.warnings()) {
            Cli.warning(spec, warning);
        }
        HistoryRecorder recorder = options.history.open(spec);
        BenchmarkResult result;
        HistoryRecorder.Summary recorded = null;
        try {
            int historyKeys = options.historyKeys == null ? 0 : options.historyKeys;
            result =
                    BenchmarkRun.run(
                            config,
                            recorder,
                            historyKeys,
                            walOptions,
                            lsm,
                            btree,
                            options.store.asyncDiskReads());
        } finally {
            if (recorder != null) {
                recorded = recorder.finish();
            }
        }
        var json = result.toJson();
        if (recorded != null) {
            json.addProperty("history_file", options.history.file().toString());
            json.addProperty("history_ops", recorded.operations());
            json.addProperty("history_truncated", recorded.truncated());
        }
        spec.commandLine().getOut().println(json);
        spec.commandLine().getOut().flush();
        if (result.anySucceeded()) { // stdout stays one JSON object; the line for people is here
            spec.commandLine().getErr().println(Cli.name(spec) + ": " + result.summary());
            spec.commandLine().getErr().flush();
        } else {
            Cli.error(
                    spec,
                    "no operation succeeded ("
                            + Words.count(result.errors(), "error")
                            + (config.connectTo() != null
                                    ? " against " + options.connect + ")"
                                    : " against the server bench started)"));
            return Cli.EXIT_FAILURE;
        }
        return Cli.EXIT_OK;
    }

    /** Runs one benchmark: starts the server (unless connecting elsewhere), the clients, stops. */
    public static BenchmarkResult run(BenchmarkConfig config)
            throws IOException, InterruptedException {
        return run(config, null, 0, null);
    }

    /**
     * {@link #run(BenchmarkConfig)}, recording every operation into {@code history} (null: none),
     * the server keeping a write-ahead log as {@code wal} says (null: none). {@code historyKeys}
     * above 0 draws the keys from that many fixed keys. The caller finishes the recorder after this
     * returns: every client thread has stopped by then.
     */
    public static BenchmarkResult run(
            BenchmarkConfig config, HistoryRecorder history, int historyKeys, WalOptions wal)
            throws IOException, InterruptedException {
        return BenchmarkRun.run(config, history, historyKeys, wal, null, null, true);
    }
}
