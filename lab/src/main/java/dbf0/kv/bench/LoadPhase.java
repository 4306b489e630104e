package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.Words;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.Store;
import dbf0.kv.workload.KeyedWorkload;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load phase of a keyed workload ({@code --records}, {@code --workload}): the records go in
 * before the clients start, and nothing of it is measured. Three ways, by where the server is:
 * straight into its map, through its log, or over v2 to servers elsewhere.
 *
 * <p>With --history, the load phase's writes go into the history too, as client number {@code
 * clientThreads} (the load threads are 0..clientThreads-1): without them every read of a loaded
 * record would have seen a value nobody wrote, and `dbf0 check` would reject the run. They take
 * from the history's limit like any operation.
 */
final class LoadPhase {

    private static final Logger LOG = LoggerFactory.getLogger(LoadPhase.class);

    /** Writes the log-through load submits before it waits for them: well under the log's queue. */
    private static final int LOAD_IN_FLIGHT = 4_096;

    /** Records per frame over the network: few round trips, frames well under the limits. */
    private static final int LOAD_BATCH = 1_000;

    private final KeyedWorkload keyed;
    private final HistoryRecorder.Log history; // null: no --history
    private final int client;

    /** {@code history}: null for none; {@code client}: the loader's client number in it. */
    LoadPhase(KeyedWorkload keyed, HistoryRecorder history, int client) {
        this.keyed = keyed;
        this.history = history == null ? null : history.log();
        this.client = client;
    }

    private void record(ByteArrayWrapper key, ByteArrayWrapper value, long invoke, long complete) {
        history.completed(
                client,
                HistoryRecorder.Op.SET,
                key.getArray(),
                value.getArray(),
                null,
                invoke,
                complete);
    }

    /**
     * With the server in this JVM: the records go straight into the map before the server starts.
     * There is no reason to pay for the protocol, and the map is not yet shared, so even {@code
     * hashmap} is safe to fill from this one thread.
     */
    void intoMap(Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        long start = System.nanoTime();
        for (long i = 0; i < keyed.records(); i++) {
            ByteArrayWrapper key = keyed.key(i);
            ByteArrayWrapper value = keyed.value(key);
            if (history != null && history.admit()) {
                long invoke = System.nanoTime();
                map.put(key, value);
                record(key, value, invoke, System.nanoTime());
            } else {
                map.put(key, value);
            }
        }
        LOG.info(
                "loaded {} into the map in {} ms",
                Words.count(keyed.records(), "record"),
                millisSince(start));
    }

    /**
     * With a write-ahead log: the records go through the log, as a client's writes would, so that
     * the log (and so a restart, a rewrite, a crash test) holds exactly what the map holds; records
     * put into the map behind the log's back would vanish at the next restart. Writes are submitted
     * {@value #LOAD_IN_FLIGHT} at a time and waited for together, so under {@code --fsync always}
     * they share fsyncs, and under the others one flush writes them.
     */
    void throughLog(Store store) {
        long start = System.nanoTime();
        List<CompletableFuture<Boolean>> inFlight = new ArrayList<>(LOAD_IN_FLIGHT);
        // for the history: each admitted write and when it was submitted, completed after its join
        record Submitted(ByteArrayWrapper key, ByteArrayWrapper value, long invoke) {}
        List<Submitted> admitted = new ArrayList<>();
        for (long i = 0; i < keyed.records(); i++) {
            ByteArrayWrapper key = keyed.key(i);
            ByteArrayWrapper value = keyed.value(key);
            if (history != null && history.admit()) {
                admitted.add(new Submitted(key, value, System.nanoTime()));
            }
            inFlight.add(store.putAsync(key, value));
            if (inFlight.size() == LOAD_IN_FLIGHT || i == keyed.records() - 1) {
                store.flush(); // the log writes what it holds (interval, never) before the wait
                for (CompletableFuture<Boolean> write : inFlight) {
                    write.join(); // a disk failure ends the run here, loudly
                }
                long complete = System.nanoTime();
                for (Submitted write : admitted) {
                    record(write.key(), write.value(), write.invoke(), complete);
                }
                inFlight.clear();
                admitted.clear();
            }
        }
        LOG.info(
                "loaded {} through the log in {} ms",
                Words.count(keyed.records(), "record"),
                millisSince(start));
    }

    /**
     * Against servers elsewhere (--connect): the records go in v2 batches of {@value #LOAD_BATCH}
     * SETs over one connection per server, each batch acknowledged before the next; a batch is
     * split by server and its replies put back in order ({@link ShardedKeyValueClient}), so each
     * record goes to the server its key is placed on, as the run's clients place it.
     */
    void overV2(List<InetSocketAddress> servers) throws IOException {
        long start = System.nanoTime();
        try (ShardedKeyValueClient store = ShardedKeyValueClient.connect(servers)) {
            List<Request> batch = new ArrayList<>(LOAD_BATCH);
            int admitted = 0; // the batch's first `admitted` SETs go into the history
            for (long i = 0; i < keyed.records(); i++) {
                ByteArrayWrapper key = keyed.key(i);
                batch.add(new Request.Set(key, keyed.value(key)));
                if (history != null && admitted == batch.size() - 1 && history.admit()) {
                    admitted++;
                }
                if (batch.size() == LOAD_BATCH || i == keyed.records() - 1) {
                    long invoke = System.nanoTime();
                    List<Response> replies = store.batch(batch);
                    long complete = System.nanoTime();
                    for (Response reply : replies) {
                        if (!(reply instanceof Response.Ok)) {
                            throw new IOException(
                                    "loading records: the server answered " + reply + " to a SET");
                        }
                    }
                    // every SET of a batch gets the batch's times: the client knows no better
                    for (int j = 0; j < admitted; j++) {
                        Request.Set set = (Request.Set) batch.get(j);
                        record(set.key(), set.value(), invoke, complete);
                    }
                    batch.clear();
                    admitted = 0;
                }
            }
        }
        LOG.info(
                "loaded {} over v2 in {} ms",
                Words.count(keyed.records(), "record"),
                millisSince(start));
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
