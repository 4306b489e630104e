package dbf0.kv.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Jepsen's etcd logs (as published with Porcupine's test data): one register, read / write / cas,
 * one event per line {@code INFO jepsen.util - P :TYPE :F VALUE}. Line numbers are the clock.
 *
 * <ul>
 *   <li>{@code :ok} completes the process's open operation with the value shown.
 *   <li>{@code :fail :cas} completed without swapping; {@code :fail :read} has an unknown result
 *       (it is kept as a pending read, which constrains nothing); any other {@code :fail} did not
 *       happen and is dropped.
 *   <li>{@code :info} (a timeout) leaves the operation pending, as does an invocation that never
 *       completes before the log ends.
 * </ul>
 *
 * Lines that are not process events (start-up logs, the nemesis) are skipped.
 */
public final class EtcdLogFormat {

    private EtcdLogFormat() {}

    /**
     * One event line's fields: {@code jepsen.util - P :TYPE :F VALUE}, after anything (a level, a
     * timestamp, a thread), words apart by whitespace. Read by hand rather than by a regular
     * expression: a check of a hundred small logs is mostly cold code, where a regex costs more
     * than the search.
     */
    private record Event(String process, String type, String f, String value) {}

    /** The event on {@code line}, or null when it is none. */
    static Event event(String line) {
        for (int at = line.indexOf("jepsen.util");
                at >= 0;
                at = line.indexOf("jepsen.util", at + 1)) {
            if (at > 0 && !space(line.charAt(at - 1))) {
                continue;
            }
            int i = spaces(line, at + "jepsen.util".length(), 1);
            if (i < 0 || i >= line.length() || line.charAt(i) != '-') {
                continue;
            }
            int p = spaces(line, i + 1, 1);
            int pEnd = p < 0 ? -1 : run(line, p, false);
            int t = pEnd <= p ? -1 : spaces(line, pEnd, 1);
            if (t < 0 || t >= line.length() || line.charAt(t) != ':') {
                continue;
            }
            int tEnd = run(line, t + 1, false);
            int f = tEnd <= t + 1 ? -1 : spaces(line, tEnd, 1);
            if (f < 0 || f >= line.length() || line.charAt(f) != ':') {
                continue;
            }
            int fEnd = run(line, f + 1, true);
            if (fEnd <= f + 1) {
                continue;
            }
            if (!digits(line, p, pEnd)) {
                continue;
            }
            return new Event(
                    line.substring(p, pEnd),
                    line.substring(t + 1, tEnd),
                    line.substring(f + 1, fEnd),
                    line.substring(fEnd).strip());
        }
        return null;
    }

    private static boolean space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    /** The index after at least {@code min} whitespace characters from {@code i}, or -1. */
    private static int spaces(String s, int i, int min) {
        int j = i;
        while (j < s.length() && space(s.charAt(j))) {
            j++;
        }
        return j - i >= min ? j : -1;
    }

    /**
     * The end of the word characters (letters, digits, _, and - if {@code dash}) from {@code i}.
     */
    private static int run(String s, int i, boolean dash) {
        int j = i;
        while (j < s.length()) {
            char c = s.charAt(j);
            boolean word =
                    (c >= 'a' && c <= 'z')
                            || (c >= 'A' && c <= 'Z')
                            || (c >= '0' && c <= '9')
                            || c == '_'
                            || (dash && c == '-');
            if (!word) {
                break;
            }
            j++;
        }
        return j;
    }

    private static boolean hasSpace(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (space(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private record Open(RegisterModel.Input input, long time, long line) {}

    public static History<String, RegisterModel.Input, RegisterModel.Output> parse(
            BufferedReader in, String source) throws IOException, HistoryParseException {
        return parse(in::readLine, source);
    }

    static History<String, RegisterModel.Input, RegisterModel.Output> parse(
            Lines.Source in, String source) throws IOException, HistoryParseException {
        List<Operation<RegisterModel.Input, RegisterModel.Output>> ops = new ArrayList<>();
        Map<Integer, Open> open = new HashMap<>();
        long lineNo = 0;
        for (String text = in.readLine(); text != null; text = in.readLine()) {
            lineNo++;
            Event ev = event(text);
            if (ev == null) {
                continue;
            }
            int process;
            try {
                process = Integer.parseInt(ev.process());
            } catch (NumberFormatException e) {
                throw new HistoryParseException(
                        source, lineNo, "process number " + ev.process() + " is too large");
            }
            String type = ev.type();
            String f = ev.f();
            String value = ev.value();
            if (!f.equals("read") && !f.equals("write") && !f.equals("cas")) {
                throw new HistoryParseException(
                        source,
                        lineNo,
                        "unknown operation :" + f + " (expected :read, :write or :cas)");
            }
            if (type.equals("invoke")) {
                if (open.containsKey(process)) {
                    throw new HistoryParseException(
                            source,
                            lineNo,
                            "process "
                                    + process
                                    + " invokes an operation while its previous one (line "
                                    + open.get(process).line()
                                    + ") is open");
                }
                open.put(process, new Open(input(f, value, source, lineNo), lineNo, lineNo));
                continue;
            }
            Open inv = open.remove(process);
            if (inv == null) {
                throw new HistoryParseException(
                        source,
                        lineNo,
                        "process " + process + " completes :" + f + " but has no open invocation");
            }
            if (!inv.input().kind().name().equalsIgnoreCase(f)) {
                throw new HistoryParseException(
                        source,
                        lineNo,
                        "process "
                                + process
                                + " invoked :"
                                + inv.input().kind().name().toLowerCase(java.util.Locale.ROOT)
                                + " (line "
                                + inv.line()
                                + ") but completes :"
                                + f);
            }
            switch (type) {
                case "ok" -> {
                    RegisterModel.Output out =
                            switch (inv.input().kind()) {
                                case READ ->
                                        RegisterModel.Output.read(scalar(value, source, lineNo));
                                case WRITE -> RegisterModel.Output.WRITTEN;
                                case CAS -> RegisterModel.Output.SWAPPED;
                            };
                    ops.add(Operation.ok(process, inv.input(), out, inv.time(), lineNo));
                }
                case "fail" -> {
                    switch (inv.input().kind()) {
                        case CAS ->
                                ops.add(
                                        Operation.ok(
                                                process,
                                                inv.input(),
                                                RegisterModel.Output.NOT_SWAPPED,
                                                inv.time(),
                                                lineNo));
                        case READ ->
                                ops.add(
                                        Operation.pending(
                                                process, inv.input(), inv.time(), lineNo));
                        case WRITE -> {} // a failed write did not happen
                    }
                }
                case "info" ->
                        ops.add(
                                Operation.pending(
                                        process, inv.input(), inv.time(), Long.MAX_VALUE));
                default ->
                        throw new HistoryParseException(
                                source,
                                lineNo,
                                "unknown event type :"
                                        + type
                                        + " (expected :invoke, :ok, :fail or :info)");
            }
        }
        for (Map.Entry<Integer, Open> e : open.entrySet()) {
            ops.add(
                    Operation.pending(
                            e.getKey(), e.getValue().input(), e.getValue().time(), Long.MAX_VALUE));
        }
        return new History<>(new RegisterModel(), ops);
    }

    private static RegisterModel.Input input(String f, String value, String source, long line)
            throws HistoryParseException {
        return switch (f) {
            case "read" -> RegisterModel.Input.read();
            case "write" -> {
                String v = scalar(value, source, line);
                if (v == null) {
                    throw new HistoryParseException(source, line, "a write needs a value, got nil");
                }
                yield RegisterModel.Input.write(v);
            }
            default -> {
                String[] pair = casPair(value);
                if (pair == null) {
                    throw new HistoryParseException(
                            source, line, "a cas needs [expected new], got \"" + value + "\"");
                }
                String expected = scalar(pair[0], source, line);
                String next = scalar(pair[1], source, line);
                if (expected == null || next == null) {
                    throw new HistoryParseException(
                            source, line, "a cas needs two values, got \"" + value + "\"");
                }
                yield RegisterModel.Input.cas(expected, next);
            }
        };
    }

    /** {@code [A B]} (spaces allowed inside the brackets) as {A, B}, or null. */
    private static String[] casPair(String value) {
        if (value.length() < 2
                || value.charAt(0) != '['
                || value.charAt(value.length() - 1) != ']') {
            return null;
        }
        String inner = value.substring(1, value.length() - 1).strip();
        int gap = 0;
        while (gap < inner.length() && !space(inner.charAt(gap))) {
            gap++;
        }
        String a = inner.substring(0, gap);
        String b = inner.substring(gap).strip();
        return a.isEmpty() || b.isEmpty() || hasSpace(b) ? null : new String[] {a, b};
    }

    /** A value as written in the log; nil is the empty register. */
    private static String scalar(String v, String source, long line) throws HistoryParseException {
        if (v.equals("nil")) {
            return null;
        }
        if (v.isEmpty() || v.startsWith(":") || v.contains(" ") || v.startsWith("[")) {
            throw new HistoryParseException(source, line, "expected a value, got \"" + v + "\"");
        }
        return v;
    }
}
