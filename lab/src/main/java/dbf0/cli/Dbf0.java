package dbf0.cli;

import dbf0.common.cli.Cli;
import dbf0.kv.bench.Benchmark;
import dbf0.kv.bench.disk.DiskBench;
import dbf0.kv.bench.resp.RespLoad;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The command line of the runnable jar: {@code java -jar target/dbf0.jar COMMAND [ARGS]}. Each
 * command is also a program of its own with a main method (named in its help).
 */
@Command(
        name = "dbf0",
        versionProvider = Dbf0.Version.class,
        description = {
            "Database From Zero: a key/value store to read, run and measure. Its server keeps the"
                    + " data in a map in memory, in a map with a write-ahead log on disk, or in an"
                    + " LSM tree on disk, and speaks its own v1 and v2 protocols and Redis's RESP."
        },
        subcommands = {
            ServeCommand.class,
            CreateHashMapRaceCondition.class,
            CreateHashMapWriteRace.class,
            Benchmark.class,
            CheckCommand.class,
            CompactCommand.class,
            NemesisClientCommand.class,
            DiskBench.class,
            RespLoad.class,
        },
        footer = {
            "",
            "Start here:  dbf0 race --map hashmap      then   dbf0 race --map concurrent",
            "Each command has --help."
        })
public final class Dbf0 implements Callable<Integer> {

    @picocli.CommandLine.Spec CommandSpec spec;

    // Not picocli's usageHelp: that would print the help and exit 0 for "dbf0 typo --help".
    @Option(
            names = {"-h", "--help"},
            description = "Show this help message and exit.")
    boolean help;

    @Option(
            names = {"-V", "--version"},
            versionHelp = true,
            description = "Print version information and exit.")
    boolean version;

    // A word that is no command lands here, so that it is reported even beside --help.
    @Parameters(hidden = true, arity = "0..*")
    List<String> unknown = List.of();

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("check")) {
            // A check lasts a fraction of a second: a plain one runs without picocli at all
            // (PlainCheck.run), and any other skips building every other command's options.
            int plain = PlainCheck.run(Arrays.copyOfRange(args, 1, args.length));
            if (plain != PlainCheck.DECLINED) {
                System.exit(plain);
            }
            CommandSpec top = CommandSpec.create().name("dbf0");
            top.addSubcommand("check", new CommandLine(new CheckCommand()));
            Cli.runAndExit(top, args);
        }
        Cli.runAndExit(new Dbf0(), args);
    }

    @Override
    public Integer call() {
        if (!unknown.isEmpty()) {
            throw Cli.usage(
                    spec,
                    "unknown command '"
                            + unknown.get(0)
                            + "'; the commands are: "
                            + String.join(", ", spec.subcommands().keySet()));
        }
        if (help) {
            spec.commandLine().usage(spec.commandLine().getOut());
            return Cli.EXIT_OK;
        }
        // No command: the list of commands, once, on stderr; a script that forgot its command
        // fails (status 2) as it does for missing arguments. `dbf0 --help` prints it on stdout.
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return Cli.EXIT_USAGE;
    }

    /** The version from the jar's manifest (set by the build). */
    static final class Version implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Dbf0.class.getPackage().getImplementationVersion();
            return new String[] {
                "dbf0 " + (v == null ? "(development build)" : v) + ", Java " + Runtime.version()
            };
        }
    }
}
