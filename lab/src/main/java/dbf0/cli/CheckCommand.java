package dbf0.cli;

import dbf0.common.Durations;
import dbf0.common.Words;
import dbf0.common.cli.Cli;
import dbf0.common.cli.CliPaths;
import dbf0.common.cli.ErrorText;
import dbf0.kv.check.CheckResult;
import dbf0.kv.check.Explanation;
import dbf0.kv.check.History;
import dbf0.kv.check.HistoryFormat;
import dbf0.kv.check.HistoryParseException;
import dbf0.kv.check.LinearizabilityChecker;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dbf0 check}: is each recorded history linearizable? One verdict line per file, the failing
 * key's timeline for a violation. Exit codes: 0 every file linearizable, 1 some file is not, 3 none
 * is known not to be but some ran out of time, 2 bad arguments or a file that cannot be read.
 */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Checks whether recorded histories are linearizable (docs/4-correctness.md).",
            "Formats: dbf0 (JSON Lines, see the docs), etcd (Jepsen etcd logs), kv"
                    + " (Jepsen/Porcupine key/value EDN), auto (each file's own, from its first"
                    + " lines)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every file is linearizable",
            "1:some file is not linearizable",
            "2:bad arguments, or a file that cannot be read or parsed",
            "3:no violation found, but some file ran out of --time-limit (unknown)"
        })
public final class CheckCommand implements Callable<Integer> {

    static final int EXIT_NOT_LINEARIZABLE = 1;
    static final int EXIT_UNKNOWN = 3;

    @Spec CommandSpec spec;

    @Option(
            names = "--format",
            defaultValue = "dbf0",
            paramLabel = "FORMAT",
            description = "dbf0, etcd, kv or auto (default: ${DEFAULT-VALUE})")
    String format;

    @Option(
            names = "--model",
            paramLabel = "MODEL",
            description =
                    "register or kv; defaults to the format's: register for etcd, kv for dbf0 and"
                            + " kv; with auto, every file's format must fit it")
    String model;

    @Option(
            names = "--time-limit",
            defaultValue = "60s",
            paramLabel = "DURATION",
            description =
                    "give up on a file after this long and call it unknown (default:"
                            + " ${DEFAULT-VALUE})")
    String timeLimit;

    @Option(
            names = "--threads",
            defaultValue = "1",
            paramLabel = "N",
            description =
                    "check a file's partitions (keys) on N threads (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--html",
            paramLabel = "FILE",
            description = "write an HTML timeline of the first violation found to FILE")
    Path html;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "history files")
    List<Path> files;

    /** Whether --format was given rather than defaulted; set when a run starts. */
    private boolean formatGiven;

    public static void main(String[] args) {
        int plain = runPlain(args);
        if (plain != DECLINED) {
            System.exit(plain);
        }
        Cli.runAndExit(new CheckCommand(), args);
    }

    /** {@link #runPlain} on the standard streams. */
    static int runPlain(String[] args) {
        return runPlain(
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

    @Override
    public Integer call() {
        Usage usage =
                (message, hint) ->
                        hint == null ? Cli.usage(spec, message) : Cli.usage(spec, message, hint);
        var parsed = spec.commandLine().getParseResult();
        formatGiven = parsed != null && parsed.hasMatchedOption("--format");
        Duration limit = checkOptions(usage);
        if (html != null) {
            CliPaths.file(spec, "--html", html);
        }
        return checkFiles(spec.commandLine().getOut(), limit, usage);
    }

    /** Makes the exception for a bad argument: picocli's, or the plain run's own. */
    private interface Usage {
        RuntimeException error(String message, String hint);
    }

    /** What {@link #runPlain} returns when picocli should run the command line instead. */
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
    static int runPlain(String[] args, PrintWriter out, PrintWriter err) {
        CheckCommand c = parsePlain(args);
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
            CommandLine cl = c.picocli(out, err);
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
            CommandLine cl = c.picocli(out, err);
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
    private CommandLine picocli(PrintWriter out, PrintWriter err) {
        CommandSpec top = CommandSpec.create().name("dbf0");
        top.addSubcommand("check", new CommandLine(this));
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
    static CheckCommand parsePlain(String[] args) {
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

    /** The time limit, once every option is known to be valid. */
    private Duration checkOptions(Usage usage) {
        Duration limit;
        try {
            limit = Durations.parsePositive(timeLimit);
        } catch (IllegalArgumentException e) {
            throw usage.error("--time-limit: " + e.getMessage(), null);
        }
        String fmt = format.toLowerCase(Locale.ROOT);
        if (!List.of("dbf0", "etcd", "kv", "auto").contains(fmt)) {
            throw usage.error(
                    "--format must be dbf0, etcd, kv or auto, not '" + format + "'", null);
        }
        if (!fmt.equals("auto")) {
            String misfit = misfit(HistoryFormat.valueOf(fmt.toUpperCase(Locale.ROOT)));
            if (misfit != null) {
                throw usage.error(misfit, null);
            }
        }
        if (threads < 1) {
            throw usage.error("--threads must be at least 1, got " + threads, null);
        }
        return limit;
    }

    /** Checks every file and reports it in order; the exit status. */
    private int checkFiles(PrintWriter out, Duration limit, Usage usage) {
        String fmt = format.toLowerCase(Locale.ROOT);
        boolean anyViolation = false;
        boolean anyUnknown = false;
        boolean htmlWritten = false;
        // Files are parsed and checked a core each, and reported in the order given. At most one
        // history per core is in memory: a finished file keeps only its report's text.
        int lanes = Math.min(files.size(), Runtime.getRuntime().availableProcessors());
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        Math.max(1, lanes), Thread.ofPlatform().name("check").daemon().factory());
        try {
            List<Future<Report>> reports = new ArrayList<>();
            for (Path file : files) {
                reports.add(pool.submit(() -> checkFile(file, fmt, limit)));
            }
            for (Future<Report> pending : reports) {
                Report r = await(pending);
                if (r.error() != null) {
                    throw usage.error(r.error(), r.hint());
                }
                out.print(r.text());
                out.flush();
                anyViolation |= r.verdict() == CheckResult.Verdict.NOT_LINEARIZABLE;
                anyUnknown |= r.verdict() == CheckResult.Verdict.UNKNOWN;
                if (html != null
                        && !htmlWritten
                        && r.verdict() == CheckResult.Verdict.NOT_LINEARIZABLE) {
                    try {
                        Files.writeString(html, r.html(), StandardCharsets.UTF_8);
                        htmlWritten = true;
                        out.println("  HTML timeline written to " + html);
                    } catch (IOException e) {
                        throw usage.error("--html " + ErrorText.of(e), null);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        if (html != null && !htmlWritten) {
            out.println("(no violation, so no HTML written to " + html + ")");
        }
        out.flush();
        return anyViolation ? EXIT_NOT_LINEARIZABLE : anyUnknown ? EXIT_UNKNOWN : 0;
    }

    private static Report await(Future<Report> report) {
        try {
            return report.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r
                    ? r
                    : new IllegalStateException(e.getCause());
        }
    }

    /** Reads, checks and reports one file; a report with an error for a bad file. */
    private Report checkFile(Path file, String fmt, Duration limit) {
        History<?, ?, ?> history;
        try {
            HistoryFormat f =
                    fmt.equals("auto")
                            ? HistoryFormat.detect(file)
                            : HistoryFormat.valueOf(fmt.toUpperCase(Locale.ROOT));
            if (f == null) {
                return Report.error(
                        "cannot tell the format of "
                                + file
                                + " from its first lines (no JSON object, EDN map or jepsen.util"
                                + " event line)",
                        "give --format dbf0, etcd or kv");
            }
            String misfit = misfit(f);
            if (misfit != null) {
                return Report.error(file + ": " + misfit);
            }
            history = f.parse(file);
        } catch (NoSuchFileException e) {
            return Report.error(file + ": no such file");
        } catch (IOException e) {
            return Report.error(file + ": cannot read: " + e.getMessage());
        } catch (HistoryParseException e) {
            // A first line that fails is a wrong guess of the format rather than a damaged file.
            return formatGiven || e.line() != 1
                    ? Report.error(e.getMessage())
                    : Report.error(
                            file
                                    + " is not a dbf0 history (JSON Lines), the format assumed"
                                    + " without --format (line 1: "
                                    + e.problem()
                                    + ")",
                            "for a Jepsen file give --format etcd or --format kv, or --format auto"
                                    + " to tell each file's (accepted: dbf0, etcd, kv, auto)");
        }
        return checkAndReport(history, file.getFileName().toString(), limit);
    }

    /** Null when --model (if given) fits {@code f}'s operations, else why not. */
    private String misfit(HistoryFormat f) {
        if (model == null || model.equalsIgnoreCase(f.modelName())) {
            return null;
        }
        return "--model "
                + model
                + " does not fit --format "
                + f.cliName()
                + " (its operations are "
                + (f.modelName().equals("register")
                        ? "read/write/cas on one register: use --model register"
                        : "per-key map operations: use --model kv")
                + ")";
    }

    /**
     * One file's outcome: a verdict with its text (and HTML for a violation), or an error (with a
     * hint of its own, or null for the pointer to --help).
     */
    private record Report(
            CheckResult.Verdict verdict, String text, String html, String error, String hint) {
        Report(CheckResult.Verdict verdict, String text, String html) {
            this(verdict, text, html, null, null);
        }

        static Report error(String message) {
            return error(message, null);
        }

        static Report error(String message, String hint) {
            return new Report(null, "", null, message, hint);
        }
    }

    // The report lines are concatenated rather than formatted: a Formatter is slow in a JVM just
    // started, and a check of a hundred small files writes a line or more for each.
    private <S, I, O> Report checkAndReport(History<S, I, O> history, String name, Duration limit) {
        CheckResult<I, O> r = LinearizabilityChecker.check(history, limit, threads);
        String secs = seconds(r.elapsed());
        String parts = count(r.partitions(), "partition");
        String where =
                r.failingKey() == null || r.failingKey().isEmpty()
                        ? ""
                        : "key " + r.failingKey() + ", ";
        String nl = System.lineSeparator();
        return switch (r.verdict()) {
            case LINEARIZABLE ->
                    new Report(
                            r.verdict(),
                            name
                                    + ": linearizable ("
                                    + count(r.operations(), "op")
                                    + ", "
                                    + parts
                                    + ", "
                                    + secs
                                    + ")"
                                    + nl,
                            null);
            case NOT_LINEARIZABLE ->
                    new Report(
                            r.verdict(),
                            name
                                    + ": NOT LINEARIZABLE ("
                                    + where
                                    + count(r.subHistory().size(), "op")
                                    + " in the failing part, "
                                    + secs
                                    + ")"
                                    + nl
                                    + indent(Explanation.text(history.model(), r, 60)),
                            html == null
                                    ? null
                                    : Explanation.html(
                                            history.model(), r, name + ": not linearizable"));
            case UNKNOWN ->
                    new Report(
                            r.verdict(),
                            name
                                    + ": UNKNOWN, ran out of --time-limit ("
                                    + where
                                    + count(r.subHistory().size(), "op")
                                    + " in that part, "
                                    + secs
                                    + ")"
                                    + nl,
                            null);
        };
    }

    /** {@code 0.25 s}: to the hundredth, as {@code %.2f s} would write it. */
    static String seconds(Duration d) {
        long hundredths = Math.round(d.toNanos() / 1e7);
        long rest = hundredths % 100;
        return hundredths / 100 + (rest < 10 ? ".0" : ".") + rest + " s";
    }

    /** {@link Words#count} without its Formatter: {@code 1,712 ops}, {@code 1 partition}. */
    static String count(long n, String one) {
        String digits = Long.toString(n);
        StringBuilder sb = new StringBuilder(digits.length() + digits.length() / 3 + 16);
        for (int i = 0; i < digits.length(); i++) {
            if (i > 0 && (digits.length() - i) % 3 == 0 && digits.charAt(i - 1) != '-') {
                sb.append(',');
            }
            sb.append(digits.charAt(i));
        }
        return sb.append(' ').append(Words.noun(n, one)).toString();
    }

    private static String indent(String text) {
        return text.isEmpty() ? text : "  " + text.replace("\n", "\n  ").stripTrailing() + "\n";
    }
}
