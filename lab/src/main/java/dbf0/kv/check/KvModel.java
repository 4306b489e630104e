package dbf0.kv.check;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A key/value map with get, put, append and delete. Operations on different keys never interact, so
 * {@link #partition} splits a history per key and each key is checked as its own small object whose
 * state is the key's value (a String, or null while absent).
 */
public final class KvModel implements Model<String, KvModel.Input, KvModel.Output> {

    public enum Kind {
        GET,
        PUT,
        APPEND,
        DELETE
    }

    public record Input(Kind kind, String key, String value) {
        public Input {
            Objects.requireNonNull(kind);
            Objects.requireNonNull(key);
            if ((kind == Kind.PUT || kind == Kind.APPEND) != (value != null)) {
                throw new IllegalArgumentException(kind + " with value " + value);
            }
        }

        public static Input get(String key) {
            return new Input(Kind.GET, key, null);
        }

        public static Input put(String key, String value) {
            return new Input(Kind.PUT, key, value);
        }

        public static Input append(String key, String value) {
            return new Input(Kind.APPEND, key, value);
        }

        public static Input delete(String key) {
            return new Input(Kind.DELETE, key, null);
        }
    }

    /**
     * What a get saw, or whether a delete found the key. {@code found == null} means the history
     * cannot tell a missing key from an empty value (Jepsen/Porcupine kv files read a missing key
     * as ""), so the value is compared with absent-as-"". For put and append, and for a delete
     * whose history does not say, the output is {@link #NONE}.
     */
    public record Output(Boolean found, String value) {
        public static final Output NONE = new Output(null, null);

        public static Output found(String value) {
            return new Output(true, Objects.requireNonNull(value));
        }

        public static Output missing() {
            return new Output(false, null);
        }

        public static Output emptyMeansMissing(String value) {
            return new Output(null, value == null ? "" : value);
        }
    }

    @Override
    public String initialState() {
        return null;
    }

    @Override
    public List<String> step(String state, Input in, Output out) {
        return switch (in.kind()) {
            case GET -> reads(state, out) ? one(state) : List.of();
            case PUT -> List.of(in.value());
            case APPEND -> List.of(state == null ? in.value() : state + in.value());
            case DELETE ->
                    out.found() == null || out.found() == (state != null) ? one(null) : List.of();
        };
    }

    private static boolean reads(String state, Output out) {
        if (out.found() == null) {
            return (state == null ? "" : state).equals(out.value());
        }
        return out.found() ? out.value().equals(state) : state == null;
    }

    /** A get; a delete that found the key missing (it leaves it missing). */
    @Override
    public boolean readOnly(Input in, Output out) {
        return in.kind() == Kind.GET
                || (in.kind() == Kind.DELETE && Boolean.FALSE.equals(out.found()));
    }

    @Override
    public List<String> stepUnknown(String state, Input in) {
        return switch (in.kind()) {
            case GET -> one(state);
            case PUT, APPEND, DELETE -> step(state, in, Output.NONE);
        };
    }

    private static List<String> one(String state) {
        return state == null ? java.util.Collections.singletonList(null) : List.of(state);
    }

    /** One part per key, in the order keys first appear. */
    @Override
    public Map<String, List<Operation<Input, Output>>> partition(
            List<Operation<Input, Output>> history) {
        Map<String, List<Operation<Input, Output>>> parts = new LinkedHashMap<>();
        for (Operation<Input, Output> op : history) {
            parts.computeIfAbsent(op.input().key(), k -> new java.util.ArrayList<>()).add(op);
        }
        return parts;
    }

    @Override
    public String describe(Input in, Output out) {
        String k = in.key();
        return switch (in.kind()) {
            case GET -> "get " + k + (out == null ? " -> ?" : " -> " + showRead(out));
            case PUT -> "put " + k + "=" + quote(in.value()) + (out == null ? " ?" : "");
            case APPEND -> "append " + k + "+=" + quote(in.value()) + (out == null ? " ?" : "");
            case DELETE ->
                    "delete "
                            + k
                            + (out == null
                                    ? " -> ?"
                                    : out.found() == null
                                            ? ""
                                            : out.found() ? " -> found" : " -> missing");
        };
    }

    private static String showRead(Output out) {
        if (out.found() == null) {
            return quote(out.value());
        }
        return out.found() ? quote(out.value()) : "missing";
    }

    private static String quote(String v) {
        return "\"" + v + "\"";
    }

    @Override
    public String name() {
        return "kv";
    }
}
