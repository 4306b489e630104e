package dbf0.kv.bench;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.client.V1Client;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyValueTracker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Random;

/**
 * The seed's connector: each connection performs one operation, a SET with probability {@code
 * setFraction}, otherwise a GET, on a key from the {@link KeyValueSource}. Counts go into this
 * connector's own stats ({@link BaseConnector#getStats()}); read them after {@link #join()}.
 *
 * <p>{@link CloseOrder} is the one switch of the TIME_WAIT experiment: the seed's client closes
 * first, so every connection leaves a TIME_WAIT socket holding one of the client's ephemeral ports
 * for a minute; letting the server close first moves that state to the server's side.
 */
public class KeyValueConnector extends BaseConnector {

    /** Who closes a one-operation connection first. */
    public enum CloseOrder {
        /** The seed's: the client closes as soon as it has sent its SET or read its GET reply. */
        CLIENT_FIRST,
        /** The client waits for the server's close (v1 servers close after the one operation). */
        SERVER_FIRST
    }

    private final double setFraction;
    private final KeyValueSource source;
    private final KeyValueTracker tracker;
    private final Random random;
    private final CloseOrder closeOrder;
    private final List<InetSocketAddress> shards;
    private boolean lastWasSet;
    private ByteArrayWrapper lastKey;
    private ByteArrayWrapper lastValue;
    private HistoryRecorder.Log history;
    private int historyClient;

    public KeyValueConnector(
            InetSocketAddress serverAddress,
            String name,
            double setFraction,
            KeyValueSource source,
            KeyValueTracker tracker,
            Random random) {
        this(serverAddress, name, setFraction, source, tracker, random, CloseOrder.CLIENT_FIRST);
    }

    public KeyValueConnector(
            InetSocketAddress serverAddress,
            String name,
            double setFraction,
            KeyValueSource source,
            KeyValueTracker tracker,
            Random random,
            CloseOrder closeOrder) {
        this(serverAddress, name, setFraction, source, tracker, random, closeOrder, List.of());
    }

    /**
     * With {@code shards} (empty: just {@code serverAddress}), each operation's connection goes to
     * the server {@link ShardedKeyValueClient#shardFor} places its key on, as a sharded v2 client's
     * would.
     */
    public KeyValueConnector(
            InetSocketAddress serverAddress,
            String name,
            double setFraction,
            KeyValueSource source,
            KeyValueTracker tracker,
            Random random,
            CloseOrder closeOrder,
            List<InetSocketAddress> shards) {
        super(serverAddress, name);
        this.closeOrder = closeOrder;
        this.shards = List.copyOf(shards);
        checkArgument(
                setFraction >= 0 && setFraction <= 1,
                "setFraction must be in [0, 1], got %s",
                setFraction);
        this.setFraction = setFraction;
        this.source = source;
        this.tracker = tracker;
        this.random = random;
    }

    /** Records every operation of this connector into {@code log}, as client {@code client}. */
    public void recordHistory(HistoryRecorder.Log log, int client) {
        this.history = log;
        this.historyClient = client;
    }

    /** Draws the next operation before connecting, since with shards its key picks the server. */
    @Override
    protected InetSocketAddress nextAddress() {
        lastKey = source.nextKey();
        lastWasSet = random.nextDouble() < setFraction;
        return shards.isEmpty()
                ? super.nextAddress()
                : shards.get(ShardedKeyValueClient.shardFor(lastKey, shards.size()));
    }

    @Override
    protected void processConnection(Socket socket) throws IOException {
        ByteArrayWrapper key = lastKey;
        boolean serverFirst = closeOrder == CloseOrder.SERVER_FIRST;
        ByteArrayWrapper value = lastWasSet ? source.valueFor(key) : null;
        long invoke = System.nanoTime();
        boolean recorded = history != null && history.admit();
        try {
            if (lastWasSet) {
                if (serverFirst) {
                    V1Client.setAndAwaitClose(socket, key, value);
                } else {
                    V1Client.set(socket, key, value);
                }
            } else {
                lastValue =
                        serverFirst
                                ? V1Client.getAndAwaitClose(socket, key)
                                : V1Client.get(socket, key);
            }
        } catch (IOException | RuntimeException e) {
            if (recorded) {
                history.pending(
                        historyClient,
                        lastWasSet ? HistoryRecorder.Op.SET : HistoryRecorder.Op.GET,
                        key.copy().getArray(),
                        lastWasSet ? value.copy().getArray() : null,
                        invoke,
                        null);
            }
            throw e;
        }
        if (recorded) {
            long now = System.nanoTime();
            if (lastWasSet) {
                // A v1 SET has no reply. Even the server's close (server-first) only says the
                // server is done with the request; it closes the same way when the put throws. So
                // the SET stays pending: it may have taken effect at any time after it was sent.
                // The close is kept for display.
                history.pending(
                        historyClient,
                        HistoryRecorder.Op.SET,
                        key.copy().getArray(),
                        value.copy().getArray(),
                        invoke,
                        serverFirst ? now : null);
            } else {
                history.completed(
                        historyClient,
                        HistoryRecorder.Op.GET,
                        key.copy().getArray(),
                        lastValue == null ? null : lastValue.getArray(),
                        lastValue != null,
                        invoke,
                        now);
            }
        }
    }

    /**
     * Counts the operation once its connection closed cleanly, and only in the measured interval.
     */
    @Override
    protected void connectionDone(long startNanos, long endNanos) {
        if (!getLatencies().counts(startNanos)) {
            return;
        }
        getLatencies().record(startNanos, endNanos);
        if (lastWasSet) {
            tracker.trackSet(lastKey);
            getStats().countSet();
        } else {
            getStats().countGet(lastValue != null, lastValue == null && tracker.contains(lastKey));
        }
    }
}
