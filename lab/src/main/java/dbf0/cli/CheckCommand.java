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
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
    boolean formatGiven;

    public static void main(String[] args) {
        int plain = PlainCheck.run(args);
        if (plain != PlainCheck.DECLINED) {
            System.exit(plain);
        }
        Cli.runAndExit(new CheckCommand(), args);
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
    interface Usage {
        RuntimeException error(String message, String hint);
    }

    /** The time limit, once every option is known to be valid. */
    Duration checkOptions(Usage usage) {
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
    int checkFiles(PrintWriter out, Duration limit, Usage usage) {
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
