package dbf0.kv.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Writes long Jepsen key/value histories (the EDN lines {@link KvEdnFormat} and Porcupine's kv
 * model read) with a known verdict. Simulated clients, one operation at a time each, run against
 * one sequential map: every operation takes effect at an instant inside its interval, in instant
 * order, so the history is linearizable by construction. Every put and append writes a token no
 * other writes ({@code x CLIENT N y}), so a value read names the last write it saw.
 *
 * <p>{@link #staleRead} changes one get to return the value from before the last write, where that
 * write began after the one before it had returned and returned itself before the get began. Real
 * time then orders them (older write, newer write, get) in every linearization, and the value the
 * get saw ends with the older write's token, which the newer one buried: not linearizable.
 *
 * <pre>
 * java -cp target/classes:target/test-classes dbf0.kv.check.KvEdnGenerator OUT OPS KEYS CLIENTS
 *     SEED [stale]
 * </pre>
 */
final class KvEdnGenerator {

    private KvEdnGenerator() {}

    public static void main(String[] args) throws IOException {
        Generated g =
                generate(
                        Integer.parseInt(args[1]),
                        Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]),
                        new Random(Long.parseLong(args[4])));
        List<String> lines =
                args.length > 5 && args[5].equals("stale") ? g.staleRead().lines() : g.lines();
        Files.write(Path.of(args[0]), lines, StandardCharsets.UTF_8);
    }

    /**
     * What one operation did; {@code stale} is a value a get can misread as shown above, or null.
     */
    private record Op(
            int client, String f, String key, String value, long invoke, long ret, String stale) {}

    /** A key's last write: the state before it, and its interval. */
    private record Write(String before, long invoke, long ret) {}

    /** A client's next operation: invoked at {@code invoke}, taking effect at {@code at}. */
    private record Next(long at, long invoke, int client) {}

    /** A generated history: its operations, and the gets that {@link #staleRead} may change. */
    record Generated(List<Op> ops, List<Integer> misreadable, Random rnd) {

        List<String> lines() {
            return render(ops);
        }

        /** The same history with one get (chosen at random among those that allow it) stale. */
        Stale staleRead() {
            List<Op> changed = new ArrayList<>(ops);
            int i = misreadable.get(rnd.nextInt(misreadable.size()));
            Op get = ops.get(i);
            changed.set(
                    i,
                    new Op(
                            get.client(),
                            "get",
                            get.key(),
                            get.stale(),
                            get.invoke(),
                            get.ret(),
                            null));
            return new Stale(render(changed), get.key());
        }
    }

    /** A history with one stale read, and the key it read. */
    record Stale(List<String> lines, String key) {}

    static Generated generate(int n, int keys, int clients, Random rnd) {
        Map<String, String> map = new HashMap<>();
        Map<String, Write> last = new HashMap<>();
        Map<String, Write> beforeLast = new HashMap<>();
        int[] written = new int[clients];
        PriorityQueue<Next> queue = new PriorityQueue<>(Comparator.comparingLong(Next::at));
        for (int c = 0; c < clients; c++) {
            long invoke = rnd.nextInt(100);
            queue.add(new Next(invoke + 1 + rnd.nextInt(200), invoke, c));
        }
        List<Op> ops = new ArrayList<>(n);
        List<Integer> misreadable = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Next next = queue.poll();
            int c = next.client();
            String key = Integer.toString(rnd.nextInt(keys));
            long ret = next.at() + 1 + rnd.nextInt(200);
            String state = map.getOrDefault(key, "");
            int dice = rnd.nextInt(20); // half gets, 7 in 20 puts, 3 in 20 appends
            if (dice < 10) {
                Write w1 = last.get(key);
                Write w0 = beforeLast.get(key);
                boolean ordered =
                        w1 != null
                                && w0 != null
                                && w0.ret() < w1.invoke()
                                && w1.ret() < next.invoke();
                String stale = ordered ? w1.before() : null;
                if (stale != null) {
                    misreadable.add(i);
                }
                ops.add(new Op(c, "get", key, state, next.invoke(), ret, stale));
            } else {
                String token = "x " + c + " " + written[c]++ + " y";
                boolean put = dice < 17;
                map.put(key, put ? token : state + token);
                if (last.containsKey(key)) {
                    beforeLast.put(key, last.get(key));
                }
                last.put(key, new Write(state, next.invoke(), ret));
                ops.add(new Op(c, put ? "put" : "append", key, token, next.invoke(), ret, null));
            }
            long invoke = ret + 1 + rnd.nextInt(50); // after its own previous return
            queue.add(new Next(invoke + 1 + rnd.nextInt(200), invoke, c));
        }
        return new Generated(ops, misreadable, rnd);
    }

    /** Invoke and ok lines by time; at equal times invocations first, so touching ones overlap. */
    private static List<String> render(List<Op> ops) {
        List<long[]> events = new ArrayList<>(2 * ops.size()); // time, 0 invoke / 1 ok, index
        for (int i = 0; i < ops.size(); i++) {
            events.add(new long[] {ops.get(i).invoke(), 0, i});
            events.add(new long[] {ops.get(i).ret(), 1, i});
        }
        events.sort(
                Comparator.<long[]>comparingLong(e -> e[0])
                        .thenComparingLong(e -> e[1])
                        .thenComparingLong(e -> e[2]));
        List<String> lines = new ArrayList<>(events.size());
        for (long[] e : events) {
            Op op = ops.get((int) e[2]);
            boolean invoke = e[1] == 0;
            String value = invoke && op.f().equals("get") ? "nil" : '"' + op.value() + '"';
            lines.add(
                    "{:process "
                            + op.client()
                            + ", :type "
                            + (invoke ? ":invoke" : ":ok")
                            + ", :f :"
                            + op.f()
                            + ", :key \""
                            + op.key()
                            + "\", :value "
                            + value
                            + "}");
        }
        return lines;
    }
}
