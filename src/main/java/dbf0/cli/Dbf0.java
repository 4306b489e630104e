package dbf0.cli;

import dbf0.common.cli.Cli;
import dbf0.kv.bench.Benchmark;
import picocli.CommandLine.Command;

/**
 * The command line of the runnable jar: {@code java -jar target/dbf0.jar COMMAND [ARGS]}.
 * Each command is also a program of its own with a main method (named in its help).
 */
@Command(
    name = "dbf0",
    mixinStandardHelpOptions = true,
    versionProvider = Dbf0.Version.class,
    description = "Database From Zero: an in-memory key/value store to read, run and measure.",
    subcommands = {
        ServeCommand.class,
        CreateHashMapRaceCondition.class,
        CreateHashMapWriteRace.class,
        Benchmark.class,
        CheckCommand.class,
        CompactCommand.class,
    },
    footer = {
        "",
        "Start here:  dbf0 race --map hashmap      then   dbf0 race --map concurrent",
        "Each command has --help."})
public final class Dbf0 implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Cli.runAndExit(new Dbf0(), args);
  }

  @Override
  public void run() {
    // No command given: show what there is.
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  /** The version from the jar's manifest (set by the build). */
  static final class Version implements picocli.CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Dbf0.class.getPackage().getImplementationVersion();
      return new String[] {"dbf0 " + (v == null ? "(development build)" : v) + ", Java " + Runtime.version()};
    }
  }
}
