package dbf0.kv.bench.options;

import dbf0.common.cli.Cli;
import dbf0.common.cli.CliPaths;
import dbf0.common.cli.ErrorText;
import dbf0.kv.check.HistoryRecorder;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --history FILE} and {@code --history-limit N}, shared by {@code race} and {@code bench} as
 * a picocli mixin: record the clients' operations as a history for {@code dbf0 check}.
 */
public final class HistoryOptions {

    @Option(
            names = "--history",
            paramLabel = "FILE",
            description =
                    "record every operation the clients send (client, key, value, times, outcome)"
                            + " to FILE in the dbf0 JSON Lines format, for `dbf0 check FILE`"
                            + " (docs/4-correctness.md)")
    Path file;

    @Option(
            names = "--history-limit",
            defaultValue = "1000000",
            paramLabel = "N",
            description =
                    "--history: record at most N operations; the run goes on (default:"
                            + " ${DEFAULT-VALUE})")
    long limit;

    /** The file to record to, or null without {@code --history}. */
    public Path file() {
        return file;
    }

    /** Checks the flags before anything runs: a negative limit, a file that cannot be made. */
    public void check(CommandSpec spec) {
        Cli.require(spec, limit >= 0, "--history-limit must not be negative, got " + limit);
        if (file != null) {
            CliPaths.file(spec, "--history", file);
        }
    }

    /**
     * The recorder, its file created (or emptied); null without {@code --history}.
     *
     * @throws Cli.Failure naming the file, if it cannot be created
     */
    public HistoryRecorder open(CommandSpec spec) {
        check(spec);
        if (file == null) {
            return null;
        }
        try {
            return HistoryRecorder.open(file, limit);
        } catch (IOException e) {
            throw new Cli.Failure("cannot write the history: " + ErrorText.of(e), e);
        }
    }
}
