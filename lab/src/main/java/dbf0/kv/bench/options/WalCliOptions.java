package dbf0.kv.bench.options;

import dbf0.common.Durations;
import dbf0.common.cli.Cli;
import dbf0.common.cli.CliPaths;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.WalOptions;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The write-ahead log's command-line options, shared by {@code server} and {@code bench} as a
 * picocli mixin. Without {@code --data-dir} none of the others matters and nothing is logged.
 */
public final class WalCliOptions {

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description =
                    "keep a write-ahead log of every write in DIR (created if missing; its parent"
                            + " must exist) and replay it on start (default: none, data lives in"
                            + " memory only)")
    Path dataDir;

    @Option(
            names = "--fsync",
            defaultValue = "always",
            paramLabel = "POLICY",
            description =
                    "always (acknowledge after fsync; group commit), interval (fsync every"
                        + " --fsync-interval), never (the OS decides) (default: ${DEFAULT-VALUE})")
    String fsync;

    @Option(
            names = "--fsync-interval",
            defaultValue = "100ms",
            paramLabel = "DURATION",
            description =
                    "period of the background fsync under --fsync interval (default:"
                            + " ${DEFAULT-VALUE})")
    String fsyncInterval;

    @Option(
            names = "--commit-wait-us",
            paramLabel = "MICROS",
            defaultValue = "" + WalOptions.DEFAULT_COMMIT_WAIT_MICROS,
            description =
                    "under --fsync always, wait up to this long for as many writes as the last"
                        + " fsync covered before forcing the next batch, so that writers whose"
                        + " replies just went out share one fsync; a lone writer never waits; 0 ="
                        + " off, at most "
                            + WalOptions.MAX_COMMIT_WAIT_MICROS
                            + " (default: ${DEFAULT-VALUE})")
    long commitWaitMicros;

    @Option(
            names = "--recover-truncate",
            description =
                    "start even if the log is corrupt in the middle, dropping the bad record and"
                            + " all after it")
    boolean recoverTruncate;

    @Option(
            names = "--rewrite-growth",
            defaultValue = "2.0",
            paramLabel = "X",
            description =
                    "rewrite the log when it reaches X times its size after the last rewrite; 0 ="
                            + " only on BGREWRITEAOF (default: ${DEFAULT-VALUE})")
    double rewriteGrowth;

    @Option(
            names = "--rewrite-min-size",
            defaultValue = "64",
            paramLabel = "MIB",
            description = "no automatic rewrite below this many MiB (default: ${DEFAULT-VALUE})")
    long rewriteMinMib;

    /**
     * {@code --data-dir} once it is a directory that exists or can be created (its parent exists);
     * null without it. Nothing is created here: the store makes the directory when it opens.
     */
    public Path dataDir(CommandSpec spec) {
        return dataDir == null ? null : CliPaths.directory(spec, "--data-dir", dataDir);
    }

    /**
     * The options as a {@link WalOptions}, or null without {@code --data-dir}; a bad value is a
     * usage error that names it.
     */
    public WalOptions toWalOptions(CommandSpec spec) {
        Path dir = dataDir(spec);
        if (dir == null) {
            return null;
        }
        Cli.require(
                spec,
                rewriteMinMib >= 0,
                "--rewrite-min-size must not be negative, got " + rewriteMinMib);
        return Cli.parameter(
                spec,
                () ->
                        new WalOptions(
                                dir,
                                FsyncPolicy.parse(fsync),
                                Durations.parse(fsyncInterval),
                                recoverTruncate,
                                rewriteGrowth,
                                rewriteMinMib << 20,
                                commitWaitMicros));
    }
}
