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
     * @param once what the final reads found of the acknowledged write-once keys
     * @param startedNs when the clients started (System.nanoTime: CLOCK_MONOTONIC on Linux)
     * @param stoppedNs when they stopped and the final reads began
     * @param finishedNs when the final reads ended
     * @param operations how many operations the history holds
     */
    public record Report(
            Tally tally,
            Map<String, Integer> keys,
            Map<String, String> finalValues,
            OnceWrites once,
            long startedNs,
            long stoppedNs,
            long finishedNs,
            long operations) {

        /** Every key got its final read. */
        public boolean complete() {
            return finalValues.size() == keys.size() && once.unread() == 0;
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
            json.addProperty("once_acknowledged", once.acknowledged());
            json.addProperty("once_lost", once.lost());
            json.addProperty("once_unread", once.unread());
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
        OnceWrites onceWrites;
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
            long finalDeadline = stoppedNs + options.finalWithin().toNanos();
            List<byte[]> shared = new ArrayList<>();
            for (int k = 0; k < plan.size(); k++) {
                shared.add(plan.key(k));
            }
            readEveryKey(reader, plan, shared, finalDeadline, finals);
            List<byte[]> once = new ArrayList<>();
            clients.forEach(c -> once.addAll(c.acknowledgedOnce));
            Map<String, String> onceFinals = new LinkedHashMap<>();
            readEveryKey(reader, plan, once, finalDeadline, onceFinals);
            onceWrites =
                    new OnceWrites(
                            once.size(),
                            onceFinals.values().stream().filter(v -> v == null).count(),
                            once.size() - onceFinals.size());
            reader.closeAll();
            tally.add(reader.tally);
            summary = recorder.finish();
        }
        return new Report(
                tally,
                keys,
                finals,
                onceWrites,
                startedNs,
                stoppedNs,
                System.nanoTime(),
                summary.operations());
    }

    /**
     * What the final reads found of the write-once keys whose SET was acknowledged.
     *
     * @param acknowledged how many such keys there were
     * @param lost how many of them the final read found missing: acknowledged writes lost
     * @param unread how many got no answer before the final reads' deadline
     */
    public record OnceWrites(long acknowledged, long lost, long unread) {}

    /** Reads each key until a read is answered or the deadline passes. */
    private static void readEveryKey(
            NemesisClient reader,
            KeyPlan plan,
            List<byte[]> keys,
            long deadline,
            Map<String, String> finals) {
        HexFormat hex = HexFormat.of();
        for (byte[] key : keys) {
            while (System.nanoTime() < deadline) {
                NemesisClient.Result r = reader.perform(false, key, plan.shardOf(key));
                if (r.outcome() == Outcome.DONE) {
                    Reply reply = r.reply();
                    finals.put(
                            hex.formatHex(key),
                            reply.type() == Reply.Type.BULK ? hex.formatHex(reply.bytes()) : null);
                    break;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(NemesisClient.BACKOFF_MS));
            }
        }
    }
}
