package dbf0.common.cli;

import dbf0.common.Durations;
import java.time.Duration;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What every dbf0 program shares on its command line: duration parsing, exit codes (0 success,
 * 1 failure while running, 2 bad arguments with the usage printed), and one-line error messages
 * instead of stack traces.
 */
public final class Cli {

  private Cli() {}

  /** Picocli converter for {@link Durations#parsePositive}. */
  public static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parsePositive(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Bad arguments: picocli prints {@code message} and the usage, and the exit status is 2. */
  public static void require(CommandSpec spec, boolean condition, String message) {
    if (!condition) {
      throw new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  /**
   * Runs a parse or check that throws IllegalArgumentException for a bad value (a map name, a
   * model, a mode...), reporting its message as a bad argument rather than a failed run.
   */
  public static <T> T parameter(CommandSpec spec, Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** A command line for {@code command} with dbf0's error handling. */
  public static CommandLine commandLine(Object command) {
    CommandLine cl = new CommandLine(command);
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println(commandLine.getCommandName() + ": error: " + oneLine(e));
      return 1;
    });
    return cl;
  }

  /** Runs {@code command} with {@code args} and exits the JVM with its exit code. */
  public static void runAndExit(Object command, String[] args) {
    System.exit(commandLine(command).execute(args));
  }

  static String oneLine(Throwable e) {
    String message = e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message;
  }
}
