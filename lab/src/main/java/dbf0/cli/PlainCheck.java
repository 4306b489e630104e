package dbf0.cli;

import dbf0.common.cli.Cli;
import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code dbf0 check} started fast: a plain command line is read and run here without picocli, and
 * anything else is left to {@link CheckCommand} under picocli. Why it is worth a class: a check of
 * a hundred histories lasts about as long as the JVM takes to verify picocli's classes.
 */
final class PlainCheck {

    private PlainCheck() {}

    /** {@link #run} on the standard streams. */
    static int run(String[] args) {
        return run(
                args,
                writer(System.out, "sun.stdout.encoding"),
                writer(System.err, "sun.stderr.encoding"));
    }

    /**
     * A writer on {@code stream} as picocli makes its own (in the charset the property names, else
     * the default one, UTF-8), so that a plain run writes the same bytes as picocli would.
     */
    private static PrintWriter writer(OutputStream stream, String encodingProperty) {
        String encoding = System.getProperty(encodingProperty);
        Charset charset =
                encoding == null
                        ? Charset.defaultCharset()
                        : Charset.forName(
                                encoding.equalsIgnoreCase("cp65001") ? "UTF-8" : encoding);
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
    }

    /** What {@link #run} returns when picocli should run the command line instead. */
    static final int DECLINED = -1;

    /**
     * Runs a plain command line, {@code [--format F] [--model M] [--time-limit D] [--threads N]
     * FILE...} with valid options, without picocli, and returns the exit status; anything else
     * (--help, --html, {@code @FILE}, an option given twice, a bad value...) returns {@link
     * #DECLINED} before doing anything, and picocli then runs it as every other command, with the
     * same errors and help. The reason: picocli's few hundred classes are Java 5 bytecode, which
     * the JDK verifies on every start and which an AOT cache or CDS archive does not keep verified,
     * so on a start-up that is otherwise cached, building its model of the command line costs about
     * as long as checking a hundred histories. The output, exit status and errors are picocli's (a
     * bad file's error goes through {@link Cli}'s handler, as it would).
     */
    static int run(String[] args, PrintWriter out, PrintWriter err) {
        CheckCommand c = parse(args);
        if (c == null) {
            return DECLINED;
        }
        Duration limit;
        try {
            limit = c.checkOptions((message, hint) -> new PlainUsageError(message, hint));
        } catch (PlainUsageError e) {
            return DECLINED; // picocli says what is wrong
        }
        try {
            return c.checkFiles(out, limit, (message, hint) -> new PlainUsageError(message, hint));
        } catch (PlainUsageError e) {
            CommandLine cl = picocli(c, out, err);
            CommandSpec check = cl.getSubcommands().get("check").getCommandSpec();
            try {
                return cl.getParameterExceptionHandler()
                        .handleParseException(
                                e.hint == null
                                        ? Cli.usage(check, e.getMessage())
                                        : Cli.usage(check, e.getMessage(), e.hint),
                                args);
            } catch (Exception unexpected) {
                throw new IllegalStateException(unexpected);
            }
        } catch (RuntimeException e) {
            CommandLine cl = picocli(c, out, err);
            try {
                return cl.getExecutionExceptionHandler()
                        .handleExecutionException(e, cl.getSubcommands().get("check"), null);
            } catch (Exception unexpected) {
                throw new IllegalStateException(unexpected);
            }
        }
    }

    /** A bad argument found by a plain run, to be reported by picocli's handler. */
    private static final class PlainUsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String hint;

        PlainUsageError(String message, String hint) {
            super(message, null, false, false);
            this.hint = hint;
        }
    }

    /** {@code dbf0 check} as picocli would have built it around this command, to report errors. */
    private static CommandLine picocli(CheckCommand c, PrintWriter out, PrintWriter err) {
        CommandSpec top = CommandSpec.create().name("dbf0");
        top.addSubcommand("check", new CommandLine(c));
        CommandLine cl = Cli.commandLine(top);
        cl.setOut(out);
        cl.setErr(err);
        return cl;
    }

    /**
     * The plain command line's options and files, or null for anything picocli must read: a word
     * starting with - that is not one of the four options, an option without its value or given
     * twice, a value that starts with -, a number of threads not written plainly, {@code @FILE}
     * (picocli reads arguments from it), no file.
     */
    static CheckCommand parse(String[] args) {
        CheckCommand c = new CheckCommand();
        c.format = "dbf0";
        c.timeLimit = "60s";
        c.threads = 1;
        c.files = new ArrayList<>();
        List<String> given = new ArrayList<>();
        boolean onlyFiles = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.isEmpty() || a.startsWith("@")) {
                    return null;
                }
                if (onlyFiles || !a.startsWith("-")) {
                    c.files.add(Path.of(a));
                    continue;
                }
                if (a.equals("--")) {
                    onlyFiles = true;
                    continue;
                }
                int eq = a.indexOf('=');
                String name = eq < 0 ? a : a.substring(0, eq);
                if (given.contains(name)) {
                    return null;
                }
                given.add(name);
                String value =
                        eq >= 0 ? a.substring(eq + 1) : i + 1 < args.length ? args[++i] : null;
                if (value == null || value.startsWith("-") || value.startsWith("@")) {
                    return null;
                }
                switch (name) {
                    case "--format" -> {
                        c.format = value;
                        c.formatGiven = true;
                    }
                    case "--model" -> c.model = value;
                    case "--time-limit" -> c.timeLimit = value;
                    case "--threads" -> {
                        if (!value.matches("[1-9][0-9]{0,8}")) {
                            return null;
                        }
                        c.threads = Integer.parseInt(value);
                    }
                    default -> {
                        return null; // --help, --version, --html, or one that is not check's
                    }
                }
            }
        } catch (InvalidPathException e) {
            return null;
        }
        return c.files.isEmpty() ? null : c;
    }
}
