package dbf0.kv.race;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.V1Client;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The race demo's checker: works over the 256 one-byte keys and counts only misses that are
 * <em>certain</em>.
 *
 * <p>Why the care: a v1 SET has no reply, so a checker cannot know when the server applied it.
 * Counting a miss for "a key I sent a SET for" would blame a correct map for a GET that simply
 * overtook the SET on another server thread. So each key goes through three states:
 *
 * <ol>
 *   <li>UNSET: send a SET;
 *   <li>SENT: send GETs until one finds the key; it is now CONFIRMED: the server has applied the
 *       SET, because it answered with the value;
 *   <li>CONFIRMED: a later GET that does not find the key is a miss.
 * </ol>
 *
 * Nothing in the demo ever deletes a key, and the writer uses 16-byte keys that can never equal a
 * one-byte key, so for a correct map a confirmed key stays visible forever: every counted miss is a
 * real bug, and with Hashtable or ConcurrentHashMap the count is always zero.
 *
 * <p>Confirmations are shared by all checker threads. The state is read before the GET is sent, so
 * the confirming GET finished before the missing one started.
 */
final class RaceChecker extends BaseConnector {

    static final int KEYS = 256;
    private static final int UNSET = 0;
    private static final int SENT = 1;
    private static final int CONFIRMED = 2;

    /** State shared by the checker threads of one experiment. */
    static final class Shared {
        final AtomicIntegerArray states = new AtomicIntegerArray(KEYS);
        final AtomicIntegerArray missesPerKey = new AtomicIntegerArray(KEYS);
        final LongAdder sets = new LongAdder();
        final LongAdder gets = new LongAdder();
        final LongAdder misses = new LongAdder();
        final LongAdder wrongValues = new LongAdder();
        final MissRecorder recorder;

        Shared(MissRecorder recorder) {
            this.recorder = recorder;
        }

        int confirmedKeys() {
            int n = 0;
            for (int k = 0; k < KEYS; k++) {
                if (states.get(k) == CONFIRMED) {
                    n++;
                }
            }
            return n;
        }

        boolean isConfirmed(int k) {
            return states.get(k) == CONFIRMED;
        }

        int distinctKeysMissed() {
            int n = 0;
            for (int k = 0; k < KEYS; k++) {
                if (missesPerKey.get(k) > 0) {
                    n++;
                }
            }
            return n;
        }
    }

    /** Told about every certain miss (key, and when). */
    interface MissRecorder {
        void missed(int key);
    }

    private final Shared shared;
    private final double setFraction;
    private final Random random;
    private final ByteArrayWrapper[] keys = new ByteArrayWrapper[KEYS];
    private final ByteArrayWrapper[] values = new ByteArrayWrapper[KEYS];
    private final HistoryRecorder.Log history;
    private final int client;

    /**
     * {@code history}: where this checker's operations are recorded, as client {@code client}; null
     * for nowhere.
     */
    RaceChecker(
            InetSocketAddress server,
            String name,
            Shared shared,
            double setFraction,
            Random random,
            HistoryRecorder.Log history,
            int client) {
        super(server, name);
        this.history = history;
        this.client = client;
        this.shared = shared;
        this.setFraction = setFraction;
        this.random = random;
        for (int k = 0; k < KEYS; k++) {
            keys[k] = ByteArrayWrapper.of(k);
            values[k] = valueOf(k);
        }
    }

    /** The value the checker stores under one-byte key {@code k}. */
    static ByteArrayWrapper valueOf(int k) {
        return ByteArrayWrapper.of(k, ~k, k, ~k);
    }

    @Override
    protected void processConnection(Socket socket) throws IOException {
        int k = random.nextInt(KEYS);
        int state = shared.states.get(k);
        if (state == UNSET || (state == CONFIRMED && random.nextDouble() < setFraction)) {
            // The server closes a v1 connection after its one operation: waiting for that close
            // puts the TIME_WAIT on the server's side and keeps the checker fast.
            long invoke = System.nanoTime();
            boolean recorded = history != null && history.admit();
            Long closed = null;
            try {
                V1Client.setAndAwaitClose(socket, keys[k], values[k]);
                closed = System.nanoTime();
            } finally {
                if (recorded) {
                    // A v1 SET has no reply, and the server's close does not prove the put happened
                    // (the server closes the same way when the put throws): pending, with the close
                    // for display.
                    history.pending(
                            client,
                            HistoryRecorder.Op.SET,
                            keys[k].getArray(),
                            values[k].getArray(),
                            invoke,
                            closed);
                }
            }
            shared.sets.increment();
            shared.states.compareAndSet(k, UNSET, SENT);
            return;
        }
        long invoke = System.nanoTime();
        boolean recorded = history != null && history.admit();
        ByteArrayWrapper value;
        try {
            value = V1Client.getAndAwaitClose(socket, keys[k]);
        } catch (IOException | RuntimeException e) {
            if (recorded) {
                history.pending(
                        client, HistoryRecorder.Op.GET, keys[k].getArray(), null, invoke, null);
            }
            throw e;
        }
        if (recorded) {
            history.completed(
                    client,
                    HistoryRecorder.Op.GET,
                    keys[k].getArray(),
                    value == null ? null : value.getArray(),
                    value != null,
                    invoke,
                    System.nanoTime());
        }
        shared.gets.increment();
        if (value != null) {
            if (!value.equals(values[k])) {
                shared.wrongValues.increment();
            }
            shared.states.compareAndSet(k, SENT, CONFIRMED);
        } else if (state == CONFIRMED) {
            shared.misses.increment();
            shared.missesPerKey.incrementAndGet(k);
            shared.recorder.missed(k);
        } else {
            shared.states.compareAndSet(k, SENT, UNSET); // not applied yet, or lost: set it again
        }
    }
}
