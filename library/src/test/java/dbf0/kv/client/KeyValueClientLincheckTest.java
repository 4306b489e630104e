package dbf0.kv.client;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on one {@link KeyValueClient} shared by three threads, against a live server on
 * 127.0.0.1: set, get and delete through the shared client must be linearizable, as the client's
 * promise of thread safety and the server's one-connection-in-order processing together imply. A
 * reply handed to the wrong waiting call, or two frames interleaved on the wire, shows up as a
 * result no sequential order of the calls explains, and fails the test with lincheck's report.
 *
 * <p>Stress mode: lincheck runs each scenario's threads for real, many times. Its model checker
 * cannot drive this code: it schedules only the threads it starts, and every call here waits for a
 * reply that the client's own reader thread and the server's threads produce, outside its control,
 * through the kernel's sockets. So the verdict is "no violation seen in these runs", not "none in
 * any interleaving".
 *
 * <pre>{@code ./mvnw -B -q test -Dtest='KeyValueClientLincheckTest'}</pre>
 *
 * <p>Tagged {@code lincheck}, like {@code MapBackendsLincheckTest}: surefire runs it in the {@code
 * lincheck} execution (pom.xml).
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:2")
@Param(name = "value", gen = IntGen.class, conf = "1:3")
public class KeyValueClientLincheckTest {

    private static KeyValueServer server;
    private static KeyValueClient client;

    /**
     * Lincheck wants a fresh, empty object per run; the server's store is one for all of them, so
     * each run gets keys of its own instead.
     */
    private static final AtomicLong RUNS = new AtomicLong();

    private final long run = RUNS.incrementAndGet();

    @BeforeAll
    static void startServerAndClient() throws Exception {
        server = new KeyValueServer(ServerOptions.defaults(), MapBackends.create("concurrent"));
        server.start();
        client = KeyValueClient.connect(server.getLocalAddress());
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * A few scenarios, each run a few hundred times: seconds, not minutes, of network round trips.
     */
    @Test
    void setGetDeleteThroughOneSharedClientAreLinearizable() {
        new StressOptions()
                .iterations(10)
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .sequentialSpecification(SequentialMap.class)
                .check(KeyValueClientLincheckTest.class);
    }

    private ByteArrayWrapper key(int key) {
        return new ByteArrayWrapper(
                ("run" + run + ":k" + key).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Operation
    public void set(@Param(name = "key") int key, @Param(name = "value") int value)
            throws IOException {
        client.set(key(key), ByteArrayWrapper.of(value));
    }

    @Operation
    public ByteArrayWrapper get(@Param(name = "key") int key) throws IOException {
        return client.get(key(key));
    }

    @Operation
    public boolean delete(@Param(name = "key") int key) throws IOException {
        return client.delete(key(key));
    }

    /**
     * What the calls should answer, one at a time: lincheck compares each run's results with this
     * map's, instead of replaying the calls over the network.
     */
    public static final class SequentialMap {
        private final Map<Integer, ByteArrayWrapper> map = new HashMap<>();

        public void set(int key, int value) {
            map.put(key, ByteArrayWrapper.of(value));
        }

        public ByteArrayWrapper get(int key) {
            return map.get(key);
        }

        public boolean delete(int key) {
            return map.remove(key) != null;
        }
    }
}
