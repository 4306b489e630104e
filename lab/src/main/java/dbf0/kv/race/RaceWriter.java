package dbf0.kv.race;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.V1Client;
import dbf0.kv.workload.RandomKeyValueSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;

/**
 * The race demo's writer: floods the server with SETs of random 16-byte keys, so the map keeps
 * growing through resize points while the checker reads.
 *
 * <p>The seed's writer closed each connection first, which leaves a TIME_WAIT socket on the client
 * for every SET and caps a loopback client near 14k connections per second (the ephemeral ports run
 * out). Waiting for the server to close first moves the TIME_WAIT to the server's side: the map
 * grows faster and the first resize-sized hole shows up sooner.
 */
final class RaceWriter extends BaseConnector {

    static final int KEY_LENGTH = 16;
    static final int VALUE_LENGTH = 8;

    private final RandomKeyValueSource source;
    private final LongAdder sets;
    private final HistoryRecorder.Log history;
    private final int client;

    /**
     * {@code history}: where this writer's SETs are recorded, as client {@code client}; null for
     * nowhere.
     */
    RaceWriter(
            InetSocketAddress server,
            String name,
            LongAdder sets,
            Random random,
            HistoryRecorder.Log history,
            int client) {
        super(server, name);
        this.source = new RandomKeyValueSource(KEY_LENGTH, VALUE_LENGTH, random);
        this.sets = sets;
        this.history = history;
        this.client = client;
    }

    @Override
    protected void processConnection(Socket socket) throws IOException {
        ByteArrayWrapper key = source.nextKey();
        ByteArrayWrapper value = source.valueFor(key);
        long invoke = System.nanoTime();
        boolean recorded = history != null && history.admit();
        Long closed = null;
        try {
            V1Client.setAndAwaitClose(socket, key, value);
            closed = System.nanoTime();
        } finally {
            if (recorded) {
                // Pending even after the server's close: v1 has no reply, and the server closes the
                // same way when the put throws (see RaceChecker). The close time is for display
                // only.
                history.pending(
                        client,
                        HistoryRecorder.Op.SET,
                        key.copy().getArray(),
                        value.copy().getArray(),
                        invoke,
                        closed);
            }
        }
        sets.increment();
    }
}
