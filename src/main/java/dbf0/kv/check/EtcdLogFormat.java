package dbf0.kv.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private static final Pattern EVENT =
            // Anything may come before the logger's name (a level, a timestamp, a thread).
            Pattern.compile(
                    "(?:^|\\s)jepsen\\.util\\s+-\\s+(\\d+)\\s+:(\\w+)\\s+:([\\w-]+)\\s*(.*?)\\s*$");

    private record Open(RegisterModel.Input input, long time, long line) {}

    public static History<String, RegisterModel.Input, RegisterModel.Output> parse(
            BufferedReader in, String source) throws IOException, HistoryParseException {
        List<Operation<RegisterModel.Input, RegisterModel.Output>> ops = new ArrayList<>();
        Map<Integer, Open> open = new HashMap<>();
        long lineNo = 0;
        for (String text = in.readLine(); text != null; text = in.readLine()) {
            lineNo++;
            Matcher m = EVENT.matcher(text);
            if (!m.find()) {
                continue;
            }
            int process;
            try {
                process = Integer.parseInt(m.group(1));
            } catch (NumberFormatException e) {
                throw new HistoryParseException(
                        source, lineNo, "process number " + m.group(1) + " is too large");
            }
            String type = m.group(2);
            String f = m.group(3);
            String value = m.group(4);
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
                Matcher m = Pattern.compile("\\[\\s*(\\S+)\\s+(\\S+)\\s*\\]").matcher(value);
                if (!m.matches()) {
                    throw new HistoryParseException(
                            source, line, "a cas needs [expected new], got \"" + value + "\"");
                }
                String expected = scalar(m.group(1), source, line);
                String next = scalar(m.group(2), source, line);
                if (expected == null || next == null) {
                    throw new HistoryParseException(
                            source, line, "a cas needs two values, got \"" + value + "\"");
                }
                yield RegisterModel.Input.cas(expected, next);
            }
        };
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
