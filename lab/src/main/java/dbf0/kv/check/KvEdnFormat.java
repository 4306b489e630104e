package dbf0.kv.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Jepsen/Porcupine key/value histories: one event per line, an EDN map such as {@code {:process 0,
 * :type :invoke, :f :put, :key "3", :value "x 0 1 y"}}. Line numbers are the clock. {@code :get}
 * returns the value read, a missing key reading as "" (so the model compares absent as ""); {@code
 * :put} replaces; {@code :append} concatenates. {@code :type :info} leaves the operation pending,
 * {@code :fail} means it did not happen, an invocation never completed is pending. Events of
 * non-numeric processes (the nemesis) are skipped.
 */
public final class KvEdnFormat {

    private KvEdnFormat() {}

    private record Open(KvModel.Input input, long line) {}

    public static History<String, KvModel.Input, KvModel.Output> parse(
            BufferedReader in, String source) throws IOException, HistoryParseException {
        return parse(in::readLine, source);
    }

    static History<String, KvModel.Input, KvModel.Output> parse(Lines.Source in, String source)
            throws IOException, HistoryParseException {
        List<Operation<KvModel.Input, KvModel.Output>> ops = new ArrayList<>();
        Map<Integer, Open> open = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        long lineNo = 0;
        for (String text = in.readLine(); text != null; text = in.readLine()) {
            lineNo++;
            if (text.isBlank()) {
                continue;
            }
            Event m = Canonical.read(text);
            if (m == null) {
                try {
                    m = Event.of(new EdnMap(text).read());
                } catch (IllegalArgumentException e) {
                    throw new HistoryParseException(
                            source, lineNo, "not an EDN map: " + e.getMessage());
                }
            }
            if (!(m.process() instanceof Long p)) {
                continue; // the nemesis and other non-client events
            }
            int process = (int) (long) p;
            String type = keyword(m.type(), "type", source, lineNo);
            String f = keyword(m.f(), "f", source, lineNo);
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
                Object key = m.key();
                if (key == null) {
                    throw new HistoryParseException(source, lineNo, "missing :key");
                }
                String k = keys.computeIfAbsent(key.toString(), x -> x);
                KvModel.Input input =
                        switch (f) {
                            case "get" -> KvModel.Input.get(k);
                            case "put" -> KvModel.Input.put(k, string(m, source, lineNo));
                            case "append" -> KvModel.Input.append(k, string(m, source, lineNo));
                            default ->
                                    throw new HistoryParseException(
                                            source,
                                            lineNo,
                                            "unknown :f :"
                                                    + f
                                                    + " (expected :get, :put or :append)");
                        };
                open.put(process, new Open(input, lineNo));
                continue;
            }
            Open inv = open.remove(process);
            if (inv == null) {
                throw new HistoryParseException(
                        source,
                        lineNo,
                        "process " + process + " completes :" + f + " but has no open invocation");
            }
            switch (type) {
                case "ok" -> {
                    KvModel.Output out =
                            inv.input().kind() == KvModel.Kind.GET
                                    ? KvModel.Output.emptyMeansMissing(
                                            m.value() == null ? "" : m.value().toString())
                                    : KvModel.Output.NONE;
                    ops.add(Operation.ok(process, inv.input(), out, inv.line(), lineNo));
                }
                case "info" ->
                        ops.add(
                                Operation.pending(
                                        process, inv.input(), inv.line(), Long.MAX_VALUE));
                case "fail" -> {} // did not happen
                default ->
                        throw new HistoryParseException(source, lineNo, "unknown :type :" + type);
            }
        }
        for (Map.Entry<Integer, Open> e : open.entrySet()) {
            ops.add(
                    Operation.pending(
                            e.getKey(), e.getValue().input(), e.getValue().line(), Long.MAX_VALUE));
        }
        return new History<>(new KvModel(), ops);
    }

    /**
     * The fields of one event line that the history needs, each null when the line has none: from
     * {@link Canonical} directly, or from {@link EdnMap}'s map.
     */
    record Event(Object process, Object type, Object f, Object key, Object value) {
        static Event of(Map<String, Object> m) {
            return new Event(
                    m.get("process"), m.get("type"), m.get("f"), m.get("key"), m.get("value"));
        }
    }

    private static String keyword(Object v, String field, String source, long line)
            throws HistoryParseException {
        if (v instanceof Keyword k) {
            return k.name();
        }
        throw new HistoryParseException(source, line, "missing or non-keyword :" + field);
    }

    private static String string(Event m, String source, long line) throws HistoryParseException {
        Object v = m.value();
        if (v == null || v instanceof Keyword || v instanceof List) {
            throw new HistoryParseException(source, line, "a put or append needs a :value");
        }
        return v.toString();
    }

    record Keyword(String name) {
        @Override
        public String toString() {
            return ":" + name;
        }
    }

    /**
     * The layout Jepsen and Porcupine write, {@code {:process 0, :type :ok, :f :get, :key "3",
     * :value "x"}}, read by a few comparisons instead of {@link EdnMap}'s character by character
     * walk (most of a short check's parsing time, in cold code), into an {@link Event} rather than
     * a map. Null for any other layout, which the general reader then takes.
     */
    static final class Canonical {
        private Canonical() {}

        static Event read(String s) {
            int at = literal(s, 0, "{:process ");
            int end = at;
            while (end >= 0 && end < s.length() && s.charAt(end) >= '0' && s.charAt(end) <= '9') {
                end++;
            }
            if (at < 0 || end == at || end - at > 9) {
                return null;
            }
            long process = Long.parseLong(s, at, end, 10);
            int type = literal(s, end, ", :type :");
            int typeEnd = word(s, type);
            int f = literal(s, typeEnd, ", :f :");
            int fEnd = word(s, f);
            int key = literal(s, fEnd, ", :key \"");
            int keyEnd = plainString(s, key);
            int value = literal(s, keyEnd < 0 ? -1 : keyEnd + 1, ", :value ");
            if (value < 0) {
                return null;
            }
            String v;
            if (s.startsWith("nil}", value) && value + 4 == s.length()) {
                v = null;
            } else if (s.startsWith("\"", value)
                    && plainString(s, value + 1) == s.length() - 2
                    && s.endsWith("}")) {
                v = s.substring(value + 1, s.length() - 2);
            } else {
                return null;
            }
            return new Event(
                    process,
                    new Keyword(name(s, type, typeEnd)),
                    new Keyword(name(s, f, fEnd)),
                    s.substring(key, keyEnd),
                    v);
        }

        private static final List<String> NAMES =
                List.of("invoke", "ok", "fail", "info", "get", "put", "append");

        /** {@code s[from, to)}, as the constant when it is one of the usual names: no copy. */
        private static String name(String s, int from, int to) {
            for (String n : NAMES) {
                if (n.length() == to - from && s.startsWith(n, from)) {
                    return n;
                }
            }
            return s.substring(from, to);
        }

        /** The index after {@code text} if it stands at {@code at}, else -1 (also for -1). */
        private static int literal(String s, int at, String text) {
            return at >= 0 && s.startsWith(text, at) ? at + text.length() : -1;
        }

        /** The end of a keyword's name (letters, digits, - and _) from {@code at}; -1 if empty. */
        private static int word(String s, int at) {
            int i = at;
            while (i >= 0 && i < s.length()) {
                char c = s.charAt(i);
                if (!Character.isLetterOrDigit(c) && c != '-' && c != '_') {
                    break;
                }
                i++;
            }
            return i > at ? i : -1;
        }

        /** The closing quote of a string without escapes whose text starts at {@code at}, or -1. */
        private static int plainString(String s, int at) {
            if (at < 0) {
                return -1;
            }
            int end = s.indexOf('"', at);
            int escape = s.indexOf('\\', at);
            return end >= 0 && (escape < 0 || escape > end) ? end : -1;
        }
    }

    /**
     * Just enough EDN for these lines: one map whose keys are keywords and whose values are
     * keywords, strings, integers, nil, booleans, or vectors of those.
     */
    static final class EdnMap {
        private final String s;
        private int i;

        EdnMap(String s) {
            this.s = s;
        }

        Map<String, Object> read() {
            skip();
            expect('{');
            Map<String, Object> m = new HashMap<>();
            while (true) {
                skip();
                if (peek() == '}') {
                    i++;
                    break;
                }
                Object k = value();
                if (!(k instanceof Keyword kw)) {
                    throw new IllegalArgumentException("map key " + k + " is not a keyword");
                }
                skip();
                m.put(kw.name(), value());
            }
            skip();
            if (i < s.length()) {
                throw new IllegalArgumentException("text after the map at column " + (i + 1));
            }
            return m;
        }

        private Object value() {
            char c = peek();
            if (c == '"') {
                return string();
            }
            if (c == '[') {
                i++;
                List<Object> v = new ArrayList<>();
                while (true) {
                    skip();
                    if (peek() == ']') {
                        i++;
                        return v;
                    }
                    v.add(value());
                }
            }
            int start = i;
            while (i < s.length()
                    && !Character.isWhitespace(s.charAt(i))
                    && ",}]".indexOf(s.charAt(i)) < 0) {
                i++;
            }
            String tok = s.substring(start, i);
            if (tok.isEmpty()) {
                throw new IllegalArgumentException("unexpected '" + c + "' at column " + (i + 1));
            }
            if (tok.startsWith(":")) {
                return new Keyword(tok.substring(1));
            }
            if (tok.equals("nil")) {
                return null;
            }
            if (tok.equals("true") || tok.equals("false")) {
                return Boolean.valueOf(tok);
            }
            try {
                return Long.parseLong(tok);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "cannot read \"" + tok + "\" at column " + (start + 1));
            }
        }

        private String string() {
            i++;
            int end = s.indexOf('"', i);
            int escape = s.indexOf('\\', i);
            if (end >= 0 && (escape < 0 || escape > end)) { // no escapes: one copy
                String plain = s.substring(i, end);
                i = end + 1;
                return plain;
            }
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = peek();
                i++;
                if (c == '"') {
                    return sb.toString();
                }
                if (c == '\\') {
                    char e = peek();
                    i++;
                    sb.append(
                            switch (e) {
                                case 'n' -> '\n';
                                case 't' -> '\t';
                                case 'r' -> '\r';
                                default -> e; // \" and \\ stand for themselves
                            });
                } else {
                    sb.append(c);
                }
            }
        }

        // Commas are whitespace in EDN.
        private void skip() {
            while (i < s.length() && (Character.isWhitespace(s.charAt(i)) || s.charAt(i) == ',')) {
                i++;
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException("the line ends too early");
            }
            return s.charAt(i);
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at column " + (i + 1));
            }
            i++;
        }
    }
}
