package dbf0.kv.check;

import com.google.gson.JsonParseException;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.MalformedJsonException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * dbf0's own history format (docs/formats.md): JSON Lines, one operation per line, keys and values
 * as hex-encoded bytes.
 *
 * <pre>
 * {"client":3,"op":"get","key":"6b31","value":"7631","found":true,
 *  "invoke_ns":100,"complete_ns":250,"status":"ok"}          (one line in the file)
 * </pre>
 *
 * <p>Lines are read one at a time with Gson's streaming reader, so a million-line file costs the
 * memory of its operations, not of its JSON. Equal keys share one String.
 */
public final class Dbf0HistoryFormat {

    private Dbf0HistoryFormat() {}

    /** Everything parsed from one line; null fields were absent or JSON null. */
    private static final class Line {
        Integer client;
        String op;
        String key;
        String value;
        Boolean found;
        Long invoke;
        Long complete;
        String status;
    }

    public static History<String, KvModel.Input, KvModel.Output> parse(
            BufferedReader in, String source) throws IOException, HistoryParseException {
        List<Operation<KvModel.Input, KvModel.Output>> ops = new ArrayList<>();
        Map<String, String> keys = new HashMap<>();
        long lineNo = 0;
        for (String text = in.readLine(); text != null; text = in.readLine()) {
            lineNo++;
            if (text.isBlank()) {
                continue;
            }
            Line l;
            try {
                l = read(text);
            } catch (IOException
                    | JsonParseException
                    | IllegalStateException
                    | NumberFormatException e) {
                throw new HistoryParseException(
                        source, lineNo, "not a JSON object as expected: " + why(e));
            }
            try {
                Operation<KvModel.Input, KvModel.Output> op = toOperation(l, keys);
                if (op != null) {
                    ops.add(op);
                }
            } catch (IllegalArgumentException e) {
                throw new HistoryParseException(source, lineNo, e.getMessage());
            }
        }
        return new History<>(new KvModel(), ops);
    }

    /** Gson's messages give advice for Gson's users (lenient mode, a URL): say what the line is. */
    private static String why(Exception e) {
        if (e instanceof MalformedJsonException) {
            return "not valid JSON";
        }
        if (e instanceof IllegalStateException || e instanceof NumberFormatException) {
            return "a field has the wrong type, or the line is not an object";
        }
        return e instanceof JsonParseException ? "not valid JSON" : e.getMessage();
    }

    private static Line read(String text) throws IOException {
        Line l = new Line();
        try (JsonReader r = new JsonReader(new StringReader(text))) {
            r.beginObject();
            while (r.hasNext()) {
                String name = r.nextName();
                if (r.peek() == JsonToken.NULL) {
                    r.nextNull();
                    continue;
                }
                switch (name) {
                    case "client" -> l.client = r.nextInt();
                    case "op" -> l.op = r.nextString();
                    case "key" -> l.key = r.nextString();
                    case "value" -> l.value = r.nextString();
                    case "found" -> l.found = r.nextBoolean();
                    case "invoke_ns" -> l.invoke = r.nextLong();
                    case "complete_ns" -> l.complete = r.nextLong();
                    case "status" -> l.status = r.nextString();
                    default -> r.skipValue(); // later fields (latencies, server ids) do not
                        // matter here
                }
            }
            r.endObject();
            if (r.peek() != JsonToken.END_DOCUMENT) {
                throw new IOException("more than one JSON value on the line");
            }
        }
        return l;
    }

    /** Null for a "fail" operation: it definitely did not take effect, so it constrains nothing. */
    private static Operation<KvModel.Input, KvModel.Output> toOperation(
            Line l, Map<String, String> keys) {
        require(l.client != null, "client");
        require(l.op != null, "op");
        require(l.key != null, "key");
        require(l.invoke != null, "invoke_ns");
        require(l.status != null, "status");
        String key = keys.computeIfAbsent(hex(l.key, "key"), k -> k);
        String value = l.value == null ? null : hex(l.value, "value");
        KvModel.Kind kind =
                switch (l.op) {
                    case "get" -> KvModel.Kind.GET;
                    case "set", "put" -> KvModel.Kind.PUT;
                    case "append" -> KvModel.Kind.APPEND;
                    case "delete" -> KvModel.Kind.DELETE;
                    default ->
                            throw new IllegalArgumentException(
                                    "op must be set, get, delete or append, not \"" + l.op + "\"");
                };
        KvModel.Input input =
                switch (kind) {
                    case GET -> KvModel.Input.get(key);
                    case PUT, APPEND -> {
                        require(value != null, "value (the bytes a " + l.op + " writes)");
                        yield new KvModel.Input(kind, key, value);
                    }
                    case DELETE -> KvModel.Input.delete(key);
                };
        switch (l.status) {
            case "fail":
                return null;
            case "pending":
                return Operation.pending(
                        l.client,
                        input,
                        l.invoke,
                        l.complete == null ? Long.MAX_VALUE : l.complete);
            case "ok":
                break;
            default:
                throw new IllegalArgumentException(
                        "status must be ok, fail or pending, not \"" + l.status + "\"");
        }
        require(l.complete != null, "complete_ns (an ok operation has completed)");
        if (l.complete < l.invoke) {
            throw new IllegalArgumentException(
                    "complete_ns " + l.complete + " is before invoke_ns " + l.invoke);
        }
        KvModel.Output output =
                switch (kind) {
                    case GET -> {
                        require(l.found != null, "found (did the get find the key?)");
                        if (l.found) {
                            require(value != null, "value (a get that found the key read a value)");
                            yield KvModel.Output.found(value);
                        }
                        yield KvModel.Output.missing();
                    }
                    case DELETE ->
                            l.found == null
                                    ? KvModel.Output.NONE
                                    : new KvModel.Output(l.found, null);
                    case PUT, APPEND -> KvModel.Output.NONE;
                };
        return Operation.ok(l.client, input, output, l.invoke, l.complete);
    }

    private static String hex(String s, String field) {
        if (s.length() % 2 != 0 || !s.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException(
                    field + " \"" + shorten(s) + "\" is not hex-encoded bytes");
        }
        return s.toLowerCase(Locale.ROOT);
    }

    private static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 37) + "..." : s;
    }

    private static void require(boolean ok, String field) {
        if (!ok) {
            throw new IllegalArgumentException("missing " + field);
        }
    }

    /**
     * One line of this format, for writers of histories (and tests). {@code complete} null =
     * pending.
     */
    public static String line(
            int client,
            String op,
            byte[] key,
            byte[] value,
            Boolean found,
            long invokeNs,
            Long completeNs,
            String status) {
        HexFormat hf = HexFormat.of();
        StringBuilder sb = new StringBuilder(96);
        sb.append("{\"client\":")
                .append(client)
                .append(",\"op\":\"")
                .append(op)
                .append("\",\"key\":\"")
                .append(hf.formatHex(key))
                .append("\",\"value\":")
                .append(value == null ? "null" : "\"" + hf.formatHex(value) + "\"")
                .append(",\"found\":")
                .append(found == null ? "null" : found.toString())
                .append(",\"invoke_ns\":")
                .append(invokeNs)
                .append(",\"complete_ns\":")
                .append(completeNs == null ? "null" : completeNs.toString())
                .append(",\"status\":\"")
                .append(status)
                .append("\"}");
        return sb.toString();
    }
}
