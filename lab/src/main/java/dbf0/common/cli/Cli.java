package dbf0.common.cli;

import dbf0.common.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What every dbf0 program shares on its command line: duration parsing, exit codes (0 success, 1
 * failure while running, 2 bad arguments with the usage printed, or for {@link ShortErrors} a hint
 * to run --help), and one-line error messages instead of stack traces.
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

    /**
     * A command whose usage is too long to follow every error (bench's is about 170 lines): a bad
     * argument prints the error and one line naming --help instead, so the error stays on screen.
     */
    public interface ShortErrors {}

    /** A command line for {@code command} with dbf0's error handling. */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    commandLine
                            .getErr()
                            .println(commandLine.getCommandName() + ": error: " + oneLine(e));
                    return 1;
                });
        // picocli asks the top command's handler, also for a subcommand's error (dbf0 bench ...)
        CommandLine.IParameterExceptionHandler withUsage = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler(
                (e, args) -> {
                    CommandLine failed = e.getCommandLine();
                    if (!(failed.getCommand() instanceof ShortErrors)) {
                        return withUsage.handleParseException(e, args);
                    }
                    PrintWriter err = failed.getErr();
                    err.println(e.getMessage());
                    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
                    err.println("Run '" + dbf0Name(failed) + " --help' for the arguments.");
                    err.flush();
                    return failed.getCommandSpec().exitCodeOnInvalidInput();
                });
        return cl;
    }

    /** {@code dbf0 bench} whether the command runs under {@code dbf0} or from its own main. */
    private static String dbf0Name(CommandLine command) {
        String name = command.getCommandSpec().qualifiedName();
        return name.startsWith("dbf0 ") || name.equals("dbf0") ? name : "dbf0 " + name;
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
