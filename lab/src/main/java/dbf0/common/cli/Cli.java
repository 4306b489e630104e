package dbf0.common.cli;

import dbf0.common.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What every dbf0 program shares on its command line: duration parsing, exit codes and one style of
 * error, set in one place ({@link #commandLine}) for every command:
 *
 * <ul>
 *   <li>0: it did what was asked;
 *   <li>1: it failed while running; one line on stderr says what failed, naming the address or
 *       path: {@code dbf0 compact: error: cannot connect to 127.0.0.1:9000: Connection refused};
 *   <li>2: bad arguments, found before anything ran; two lines on stderr, the error and a hint:
 *       {@code dbf0 server: error: --port must be 0..65535, got 99999} then {@code see 'dbf0 server
 *       --help'}.
 * </ul>
 *
 * No usage text follows an error (a command's usage is up to 170 lines, which would scroll the
 * error away) and no stack trace: {@code -Dorg.slf4j.simpleLogger.defaultLogLevel=debug} logs it.
 */
public final class Cli {

    /** The command did what was asked. */
    public static final int EXIT_OK = 0;

    /** The command failed while running (one line on stderr says what failed). */
    public static final int EXIT_FAILURE = 1;

    /** Bad arguments: nothing ran (the error and a hint on stderr). */
    public static final int EXIT_USAGE = 2;

    private static final Logger LOG = LoggerFactory.getLogger(Cli.class);

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

    /** Picocli converter for {@link Durations#parse} that also takes 0, refusing only less. */
    public static final class DurationOrZeroConverter
            implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                Duration d = Durations.parse(value);
                if (d.isNegative()) {
                    throw new IllegalArgumentException(
                            "duration must not be negative, got '" + value + "'");
                }
                return d;
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * A bad argument whose second line is a hint of its own ("create it first...") rather than the
     * pointer to {@code --help}.
     */
    public static final class UsageError extends CommandLine.ParameterException {
        private static final long serialVersionUID = 1L;

        private final String hint;

        UsageError(CommandLine commandLine, String message, String hint) {
            super(commandLine, message);
            this.hint = hint;
        }

        /** The second line, or null for the pointer to {@code --help}. */
        public String hint() {
            return hint;
        }
    }

    /**
     * A failure while running, in the one line the command prints for it (exit status 1): say what
     * failed and name it, {@code cannot connect to 127.0.0.1:9000: Connection refused}.
     */
    public static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Failure(String message) {
            super(message);
        }

        public Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Bad arguments unless {@code condition}: the error line is {@code message}. */
    public static void require(CommandSpec spec, boolean condition, String message) {
        if (!condition) {
            throw usage(spec, message);
        }
    }

    /** A bad argument, to throw: {@code message} and the pointer to {@code --help}. */
    public static CommandLine.ParameterException usage(CommandSpec spec, String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A bad argument, to throw: {@code message} and {@code hint} on the line after it. */
    public static UsageError usage(CommandSpec spec, String message, String hint) {
        return new UsageError(spec.commandLine(), message, hint);
    }

    /**
     * Runs a parse or check that throws IllegalArgumentException for a bad value (a map name, a
     * model, a mode...), reporting its message as a bad argument rather than a failed run.
     */
    public static <T> T parameter(CommandSpec spec, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw usage(spec, e.getMessage());
        }
    }

    /** A command line for {@code command} with dbf0's exit codes and error lines. */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    LOG.debug("{} failed", name(commandLine.getCommandSpec()), e);
                    error(commandLine.getCommandSpec(), ErrorText.of(e));
                    return EXIT_FAILURE;
                });
        // picocli asks the top command's handler, also for a subcommand's error (dbf0 bench ...)
        cl.setParameterExceptionHandler(
                (e, args) -> {
                    CommandSpec failed = e.getCommandLine().getCommandSpec();
                    error(failed, sentence(e.getMessage()));
                    PrintWriter err = e.getCommandLine().getErr();
                    err.println(hint(e, failed));
                    err.flush();
                    return EXIT_USAGE;
                });
        return cl;
    }

    /** Prints {@code dbf0 CMD: error: message} on the command's stderr. */
    public static void error(CommandSpec spec, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(name(spec) + ": error: " + message);
        err.flush();
    }

    /** Prints {@code dbf0 CMD: warning: message} on the command's stderr. */
    public static void warning(CommandSpec spec, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(name(spec) + ": warning: " + message);
        err.flush();
    }

    /** {@code dbf0 bench}, whether the command runs under {@code dbf0} or from its own main. */
    public static String name(CommandSpec spec) {
        String name = spec.qualifiedName();
        return name.startsWith("dbf0 ") || name.equals("dbf0") ? name : "dbf0 " + name;
    }

    /** The second line of a usage error: the command's own hint, else where the help is. */
    private static String hint(CommandLine.ParameterException e, CommandSpec failed) {
        if (e instanceof UsageError usage && usage.hint() != null) {
            return usage.hint();
        }
        String help = "see '" + name(failed) + " --help'";
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            List<String> suggestions = unmatched.getSuggestions();
            if (suggestions.size() == 1) {
                return "did you mean " + suggestions.get(0) + "? " + help;
            }
            if (!suggestions.isEmpty()) {
                return "did you mean one of " + String.join(", ", suggestions) + "? " + help;
            }
        }
        return help;
    }

    /** Picocli's "Unknown option: ..." in the case of dbf0's own messages, on one line. */
    private static String sentence(String message) {
        String m =
                message == null ? "bad arguments" : message.strip().replaceAll("\\s*\n\\s*", " ");
        if (m.length() > 1
                && Character.isUpperCase(m.charAt(0))
                && Character.isLowerCase(m.charAt(1))) {
            return m.substring(0, 1).toLowerCase(Locale.ROOT) + m.substring(1);
        }
        return m;
    }

    /** Runs {@code command} with {@code args} and exits the JVM with its exit code. */
    public static void runAndExit(Object command, String[] args) {
        System.exit(commandLine(command).execute(args));
    }
}
