package dbf0.kv.nemesis;

import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dbf0.kv.check.HistoryRecorder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The nemesis's workload: {@link NemesisOptions#clients()} clients read and write the keys for the
 * run's duration, then one more client reads every key until each read is answered (within {@link
 * NemesisOptions#finalWithin()}), and the history is complete.
 *
 * <p>Those final reads are in the history, after every other operation began: a write acknowledged
 * and then lost makes the history not linearizable, and the reads' values let the caller count such
 * writes directly.
 */
public final class NemesisWorkload {

    /** At most this many operations are recorded: far more than a campaign performs. */
    static final long HISTORY_LIMIT = 20_000_000;

    private NemesisWorkload() {}

    /**
     * What a run did.
     *
     * @param tally what the clients saw, together
     * @param keys each key (hex) with its shard
     * @param finalValues each key (hex) with its final read's value (hex; null if not found); keys
     *     whose final read never got an answer are absent
     * @param startedNs when the clients started (System.nanoTime: CLOCK_MONOTONIC on Linux)
     * @param stoppedNs when they stopped and the final reads began
     * @param finishedNs when the final reads ended
     * @param operations how many operations the history holds
     */
    public record Report(
            Tally tally,
            Map<String, Integer> keys,
            Map<String, String> finalValues,
            long startedNs,
            long stoppedNs,
            long finishedNs,
            long operations) {

        /** Every key got its final read. */
        public boolean complete() {
            return finalValues.size() == keys.size();
        }

        /** The report as one JSON object (docs/formats.md, the nemesis client's lines). */
        public JsonObject toJson() {
            JsonObject json = new JsonObject();
            json.addProperty("event", "done");
            json.addProperty("started_ns", startedNs);
            json.addProperty("stopped_ns", stoppedNs);
            json.addProperty("finished_ns", finishedNs);
            json.addProperty("operations", operations);
            json.addProperty("ok_writes", tally.okWrites());
            json.addProperty("ok_reads", tally.okReads());
            json.addProperty("pending_writes", tally.pendingWrites());
            json.addProperty("pending_reads", tally.pendingReads());
            json.addProperty("failed", tally.failed());
            JsonObject answers = new JsonObject();
            tally.answers().forEach(answers::addProperty);
            json.add("answers", answers);
            JsonObject shards = new JsonObject();
            keys.forEach(shards::addProperty);
            json.add("key_shards", shards);
            JsonObject values = new JsonObject();
            for (String key : keys.keySet()) {
                if (finalValues.containsKey(key)) {
                    String v = finalValues.get(key);
                    values.add(key, v == null ? JsonNull.INSTANCE : new JsonPrimitive(v));
                }
            }
            json.add("final_values", values);
            json.addProperty("complete", complete());
            return json;
        }
    }

    /**
     * Runs the workload; {@code started} is told the clock's reading just before the clients start.
     */
    public static Report run(NemesisOptions options, java.util.function.LongConsumer started)
            throws IOException, InterruptedException {
        KeyPlan plan = KeyPlan.spread(options.nodes(), options.shards(), options.keys());
        HexFormat hex = HexFormat.of();
        Map<String, Integer> keys = new LinkedHashMap<>();
        for (int k = 0; k < plan.size(); k++) {
            keys.put(hex.formatHex(plan.key(k)), plan.shard(k));
        }
        Tally tally = new Tally();
        Map<String, String> finals = new LinkedHashMap<>();
        long startedNs;
        long stoppedNs;
        HistoryRecorder.Summary summary;
        try (HistoryRecorder recorder = HistoryRecorder.open(options.history(), HISTORY_LIMIT)) {
            List<NemesisClient> clients = new ArrayList<>();
            for (int c = 0; c < options.clients(); c++) {
                clients.add(new NemesisClient(c, options, plan, recorder.log()));
            }
            startedNs = System.nanoTime();
            started.accept(startedNs);
            long deadline = startedNs + options.duration().toNanos();
            List<Thread> threads = new ArrayList<>();
            for (NemesisClient client : clients) {
                threads.add(
                        Thread.ofPlatform()
                                .name("nemesis-client-" + threads.size())
                                .start(() -> client.runUntil(deadline)));
            }
            for (Thread t : threads) {
                t.join();
            }
            stoppedNs = System.nanoTime();
            clients.forEach(c -> tally.add(c.tally));
            NemesisClient reader =
                    new NemesisClient(options.clients(), options, plan, recorder.log());
            readEveryKey(reader, plan, stoppedNs + options.finalWithin().toNanos(), finals);
            tally.add(reader.tally);
            summary = recorder.finish();
        }
        return new Report(
                tally, keys, finals, startedNs, stoppedNs, System.nanoTime(), summary.operations());
    }

    /** Reads each key until a read is answered or the deadline passes. */
    private static void readEveryKey(
            NemesisClient reader, KeyPlan plan, long deadline, Map<String, String> finals) {
        HexFormat hex = HexFormat.of();
        try {
            for (int k = 0; k < plan.size(); k++) {
                while (System.nanoTime() < deadline) {
                    NemesisClient.Result r = reader.perform(false, k);
                    if (r.outcome() == Outcome.DONE) {
                        Reply reply = r.reply();
                        finals.put(
                                hex.formatHex(plan.key(k)),
                                reply.type() == Reply.Type.BULK
                                        ? hex.formatHex(reply.bytes())
                                        : null);
                        break;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(NemesisClient.BACKOFF_MS));
                }
            }
        } finally {
            reader.closeAll();
        }
    }
}
