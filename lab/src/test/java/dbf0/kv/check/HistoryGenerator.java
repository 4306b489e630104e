package dbf0.kv.check;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Writes a linearizable dbf0 history of any size: simulated clients, each one operation at a time,
 * against one sequential map. Every operation takes effect at an instant inside its interval, in
 * instant order, so the file is linearizable by construction; intervals of different clients
 * overlap freely. A few operations are pending (some took effect, some did not) and a few failed.
 *
 * <pre>
 * java -cp target/classes:target/test-classes:GSON \
 *     dbf0.kv.check.HistoryGenerator /tmp/h.jsonl 1000000 10000 64 1
 * </pre>
 */
final class HistoryGenerator {

    private HistoryGenerator() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        long ops = Long.parseLong(args[1]);
        int keys = Integer.parseInt(args[2]);
        int clients = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            write(w, ops, keys, clients, new Random(seed));
        }
    }

    /** A client's next operation: invoked at {@code invoke}, taking effect at {@code at}. */
    private record Next(long at, long invoke, int client) {}

    static void write(Writer w, long ops, int keys, int clients, Random rnd) throws IOException {
        Map<Integer, byte[]> map = new HashMap<>();
        PriorityQueue<Next> queue = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
        for (int c = 0; c < clients; c++) {
            long invoke = rnd.nextInt(1000);
            queue.add(new Next(invoke + 1 + rnd.nextInt(2000), invoke, c));
        }
        for (long n = 0; n < ops; n++) {
            Next next = queue.poll();
            int k = rnd.nextInt(keys);
            byte[] key = ("key" + k).getBytes(StandardCharsets.US_ASCII);
            long ret = next.at() + 1 + rnd.nextInt(2000);
            int dice = rnd.nextInt(1000);
            String status = dice < 2 ? "pending" : dice < 4 ? "fail" : "ok";
            boolean takesEffect =
                    status.equals("ok") || (status.equals("pending") && rnd.nextBoolean());
            int kind = rnd.nextInt(10); // 50% get, 40% set, 10% delete
            String line;
            if (kind < 5) {
                byte[] v = map.get(k);
                line =
                        Dbf0HistoryFormat.line(
                                next.client(), "get", key, v, v != null, next.invoke(), ret, "ok");
            } else if (kind < 9) {
                byte[] v = new byte[8];
                rnd.nextBytes(v);
                if (takesEffect) {
                    map.put(k, v);
                }
                line =
                        Dbf0HistoryFormat.line(
                                next.client(),
                                "set",
                                key,
                                v,
                                null,
                                next.invoke(),
                                status.equals("pending") ? null : ret,
                                status);
            } else {
                if (takesEffect) {
                    map.remove(k);
                }
                line =
                        Dbf0HistoryFormat.line(
                                next.client(),
                                "delete",
                                key,
                                null,
                                null,
                                next.invoke(),
                                status.equals("pending") ? null : ret,
                                status);
            }
            w.write(line);
            w.write('\n');
            // A client whose operation is pending gave up on it; it carries on (as a new connection
            // would).
            long invoke = ret + rnd.nextInt(500);
            queue.add(new Next(invoke + 1 + rnd.nextInt(2000), invoke, next.client()));
        }
    }
}
