package dbf0.kv.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random histories for property tests: {@code linearizable*} runs a real sequential object and
 * gives each operation an interval around the instant it took effect, so the result is linearizable
 * by construction; {@code arbitrary*} draws outputs at random, so it may be either.
 */
final class RandomHistories {

    private RandomHistories() {}

    /**
     * {@code n} operations on a register applied in order at instants 10, 20, ...; each interval
     * stretches up to {@code spread} either side of its instant. Some writes and CASes are pending:
     * either they took effect (and were seen) or never did.
     */
    static List<Operation<RegisterModel.Input, RegisterModel.Output>> linearizableRegister(
            Random rnd, int n, int spread) {
        List<Operation<RegisterModel.Input, RegisterModel.Output>> ops = new ArrayList<>();
        String value = null;
        for (int k = 0; k < n; k++) {
            long t = 10L * (k + 1);
            long invoke = t - rnd.nextInt(spread + 1);
            long ret = t + rnd.nextInt(spread + 1);
            int client = rnd.nextInt(8);
            int kind = rnd.nextInt(3);
            String v = Integer.toString(rnd.nextInt(4));
            boolean pending = kind != 0 && rnd.nextInt(6) == 0;
            if (pending && rnd.nextBoolean()) {
                // Invoked, then lost before it could take effect.
                ops.add(
                        Operation.pending(
                                client,
                                kind == 1
                                        ? RegisterModel.Input.write(v)
                                        : RegisterModel.Input.cas(
                                                Integer.toString(rnd.nextInt(4)), v),
                                invoke,
                                Long.MAX_VALUE));
                continue;
            }
            switch (kind) {
                case 0 ->
                        ops.add(
                                Operation.ok(
                                        client,
                                        RegisterModel.Input.read(),
                                        RegisterModel.Output.read(value),
                                        invoke,
                                        ret));
                case 1 -> {
                    ops.add(
                            pending
                                    ? Operation.pending(
                                            client,
                                            RegisterModel.Input.write(v),
                                            invoke,
                                            Long.MAX_VALUE)
                                    : Operation.ok(
                                            client,
                                            RegisterModel.Input.write(v),
                                            RegisterModel.Output.WRITTEN,
                                            invoke,
                                            ret));
                    value = v;
                }
                default -> {
                    // Expect the current value half the time, so both outcomes happen.
                    String expected =
                            rnd.nextBoolean() && value != null
                                    ? value
                                    : Integer.toString(rnd.nextInt(4));
                    boolean swapped = expected.equals(value);
                    RegisterModel.Input in = RegisterModel.Input.cas(expected, v);
                    ops.add(
                            pending
                                    ? Operation.pending(client, in, invoke, Long.MAX_VALUE)
                                    : Operation.ok(
                                            client,
                                            in,
                                            swapped
                                                    ? RegisterModel.Output.SWAPPED
                                                    : RegisterModel.Output.NOT_SWAPPED,
                                            invoke,
                                            ret));
                    if (swapped) {
                        value = v;
                    }
                }
            }
        }
        return ops;
    }

    /**
     * Like {@link #linearizableRegister} for a map over {@code keys} keys: get, put, append,
     * delete.
     */
    static List<Operation<KvModel.Input, KvModel.Output>> linearizableKv(
            Random rnd, int n, int keys, int spread) {
        return linearizableKv(rnd, n, keys, spread, 8, true);
    }

    /** ... with one update in {@code pendingOneIn} pending (0: none), and appends or not. */
    static List<Operation<KvModel.Input, KvModel.Output>> linearizableKv(
            Random rnd, int n, int keys, int spread, int pendingOneIn, boolean appends) {
        List<Operation<KvModel.Input, KvModel.Output>> ops = new ArrayList<>();
        String[] values = new String[keys];
        for (int k = 0; k < n; k++) {
            long t = 10L * (k + 1);
            long invoke = t - rnd.nextInt(spread + 1);
            long ret = t + rnd.nextInt(spread + 1);
            int client = rnd.nextInt(8);
            int key = rnd.nextInt(keys);
            String name = "k" + key;
            String v = Integer.toString(rnd.nextInt(10));
            KvModel.Input in =
                    switch (rnd.nextInt(5)) {
                        case 0, 1 -> KvModel.Input.get(name);
                        case 2 -> KvModel.Input.put(name, v);
                        case 3 ->
                                appends
                                        ? KvModel.Input.append(name, v)
                                        : KvModel.Input.put(name, v);
                        default -> KvModel.Input.delete(name);
                    };
            boolean pending =
                    in.kind() != KvModel.Kind.GET
                            && pendingOneIn > 0
                            && rnd.nextInt(pendingOneIn) == 0;
            if (pending) {
                ops.add(Operation.pending(client, in, invoke, Long.MAX_VALUE));
                if (rnd.nextBoolean()) {
                    continue; // it never took effect
                }
            }
            KvModel.Output out =
                    switch (in.kind()) {
                        case GET ->
                                values[key] == null
                                        ? KvModel.Output.missing()
                                        : KvModel.Output.found(values[key]);
                        case DELETE -> new KvModel.Output(values[key] != null, null);
                        default -> KvModel.Output.NONE;
                    };
            values[key] =
                    switch (in.kind()) {
                        case GET -> values[key];
                        case PUT -> in.value();
                        case APPEND -> values[key] == null ? in.value() : values[key] + in.value();
                        case DELETE -> null;
                    };
            if (!pending) {
                ops.add(Operation.ok(client, in, out, invoke, ret));
            }
        }
        return ops;
    }

    /**
     * Small register histories with random outputs and times from a small range (so ties happen).
     */
    static List<Operation<RegisterModel.Input, RegisterModel.Output>> arbitraryRegister(
            Random rnd, int n) {
        return arbitraryRegister(rnd, n, 5);
    }

    /** ... with one operation in {@code pendingOneIn} pending. */
    static List<Operation<RegisterModel.Input, RegisterModel.Output>> arbitraryRegister(
            Random rnd, int n, int pendingOneIn) {
        List<Operation<RegisterModel.Input, RegisterModel.Output>> ops = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            long a = rnd.nextInt(12);
            long b = a + rnd.nextInt(6);
            String v = Integer.toString(rnd.nextInt(3));
            RegisterModel.Input in =
                    switch (rnd.nextInt(3)) {
                        case 0 -> RegisterModel.Input.read();
                        case 1 -> RegisterModel.Input.write(v);
                        default -> RegisterModel.Input.cas(Integer.toString(rnd.nextInt(3)), v);
                    };
            if (rnd.nextInt(pendingOneIn) == 0) {
                ops.add(Operation.pending(k, in, a, Long.MAX_VALUE));
                continue;
            }
            RegisterModel.Output out =
                    switch (in.kind()) {
                        case READ ->
                                RegisterModel.Output.read(
                                        rnd.nextInt(4) == 0
                                                ? null
                                                : Integer.toString(rnd.nextInt(3)));
                        case WRITE -> RegisterModel.Output.WRITTEN;
                        case CAS ->
                                rnd.nextBoolean()
                                        ? RegisterModel.Output.SWAPPED
                                        : RegisterModel.Output.NOT_SWAPPED;
                    };
            ops.add(Operation.ok(k, in, out, a, b));
        }
        return ops;
    }

    /** Small single-key map histories with random outputs. */
    static List<Operation<KvModel.Input, KvModel.Output>> arbitraryKv(Random rnd, int n) {
        return arbitraryKv(rnd, n, 5);
    }

    /** ... with one operation in {@code pendingOneIn} pending. */
    static List<Operation<KvModel.Input, KvModel.Output>> arbitraryKv(
            Random rnd, int n, int pendingOneIn) {
        List<Operation<KvModel.Input, KvModel.Output>> ops = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            long a = rnd.nextInt(12);
            long b = a + rnd.nextInt(6);
            String v = rnd.nextBoolean() ? "x" : "y";
            KvModel.Input in =
                    switch (rnd.nextInt(4)) {
                        case 0 -> KvModel.Input.get("k");
                        case 1 -> KvModel.Input.put("k", v);
                        case 2 -> KvModel.Input.append("k", v);
                        default -> KvModel.Input.delete("k");
                    };
            if (rnd.nextInt(pendingOneIn) == 0) {
                ops.add(Operation.pending(k, in, a, Long.MAX_VALUE));
                continue;
            }
            String[] seen = {"x", "y", "xy", "yx", "xx"};
            KvModel.Output out =
                    switch (in.kind()) {
                        case GET ->
                                rnd.nextInt(3) == 0
                                        ? KvModel.Output.missing()
                                        : KvModel.Output.found(seen[rnd.nextInt(seen.length)]);
                        case DELETE ->
                                rnd.nextBoolean()
                                        ? KvModel.Output.NONE
                                        : new KvModel.Output(rnd.nextBoolean(), null);
                        default -> KvModel.Output.NONE;
                    };
            ops.add(Operation.ok(k, in, out, a, b));
        }
        return ops;
    }
}
