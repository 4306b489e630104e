package dbf0.kv.check;

import java.util.List;
import java.util.Objects;

/**
 * A single register holding a value or nothing (null), with read, write and compare-and-set. The
 * state is the value itself (a String, or null while empty).
 *
 * <p>A compare-and-set that completes without swapping (its expected value was not there) is an
 * ordinary completed operation with {@code swapped = false}: it tells us the register did not hold
 * the expected value at its linearization point.
 */
public final class RegisterModel
        implements Model<String, RegisterModel.Input, RegisterModel.Output> {

    public enum Kind {
        READ,
        WRITE,
        CAS
    }

    /**
     * {@code value}: what a write writes or a CAS sets; {@code expected}: what a CAS compares with.
     */
    public record Input(Kind kind, String value, String expected) {
        public static Input read() {
            return new Input(Kind.READ, null, null);
        }

        public static Input write(String value) {
            return new Input(Kind.WRITE, Objects.requireNonNull(value), null);
        }

        public static Input cas(String expected, String value) {
            return new Input(
                    Kind.CAS, Objects.requireNonNull(value), Objects.requireNonNull(expected));
        }
    }

    /**
     * {@code value}: what a read returned (null = empty); {@code swapped}: whether a CAS swapped.
     */
    public record Output(String value, boolean swapped) {
        public static final Output WRITTEN = new Output(null, false);
        public static final Output SWAPPED = new Output(null, true);
        public static final Output NOT_SWAPPED = new Output(null, false);

        public static Output read(String value) {
            return new Output(value, false);
        }
    }

    @Override
    public String initialState() {
        return null;
    }

    @Override
    public List<String> step(String state, Input in, Output out) {
        return switch (in.kind()) {
            case READ -> Objects.equals(state, out.value()) ? one(state) : List.of();
            case WRITE -> List.of(in.value());
            case CAS -> {
                boolean matches = in.expected().equals(state);
                if (out.swapped()) {
                    yield matches ? List.of(in.value()) : List.of();
                }
                yield matches ? List.of() : one(state);
            }
        };
    }

    /** A read; a compare-and-set that did not swap. */
    @Override
    public boolean readOnly(Input in, Output out) {
        return in.kind() == Kind.READ || (in.kind() == Kind.CAS && !out.swapped());
    }

    @Override
    public List<String> stepUnknown(String state, Input in) {
        return switch (in.kind()) {
            case READ -> one(state);
            case WRITE -> List.of(in.value());
            // Whichever answer it got, a CAS did what the state says; "no effect" is allowed
            // anyway.
            case CAS -> in.expected().equals(state) ? List.of(in.value()) : one(state);
        };
    }

    // List.of rejects null, and null is the empty register.
    private static List<String> one(String state) {
        return state == null ? java.util.Collections.singletonList(null) : List.of(state);
    }

    @Override
    public String describe(Input in, Output out) {
        return switch (in.kind()) {
            case READ -> "read" + (out == null ? " -> ?" : " -> " + show(out.value()));
            case WRITE -> "write " + in.value() + (out == null ? " -> ?" : "");
            case CAS ->
                    "cas "
                            + in.expected()
                            + "->"
                            + in.value()
                            + (out == null
                                    ? " -> ?"
                                    : out.swapped() ? " -> swapped" : " -> not swapped");
        };
    }

    private static String show(String v) {
        return v == null ? "nil" : v;
    }

    @Override
    public String name() {
        return "register";
    }
}
