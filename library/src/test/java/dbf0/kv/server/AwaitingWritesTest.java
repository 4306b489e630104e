package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes that wait for the store (a log's fsync) through a real server, with a store whose futures
 * the test completes by hand: an event loop serves other connections meanwhile, replies stay in
 * order, a half-closed or closed connection is handled, failures answer errors, and one connection
 * never has more than {@link PendingReplies#MAX_IN_FLIGHT} writes in flight.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AwaitingWritesTest {

    /**
     * A store whose writes wait until the test releases them, as a log writer's do until its fsync:
     * a write is applied to the map only when released (so a reader sees nothing before), then its
     * future completes.
     */
    static final class HeldStore extends ForwardingStore {
        private final Deque<Runnable> held = new ArrayDeque<>();
        private int submitted;

        synchronized int held() {
            return held.size();
        }

        synchronized int submitted() {
            return submitted;
        }

        /** Applies and completes every held write, in the order submitted. */
        void release() {
            for (Runnable write : take()) {
                write.run();
            }
        }

        /** Fails every held write without applying it, as a failed fsync does. */
        void fail(String why) {
            StorageFailureException failure = new StorageFailureException(why);
            synchronized (this) {
                failing = failure;
            }
            try {
                release();
            } finally {
                synchronized (this) {
                    failing = null;
                }
            }
        }

        private StorageFailureException failing;

        private synchronized Runnable[] take() {
            Runnable[] writes = held.toArray(Runnable[]::new);
            held.clear();
            return writes;
        }

        private synchronized CompletableFuture<Boolean> hold(
                java.util.function.BooleanSupplier apply) {
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            submitted++;
            held.add(
                    () -> {
                        StorageFailureException failure;
                        synchronized (this) {
                            failure = failing;
                        }
                        if (failure != null) {
                            done.completeExceptionally(failure);
                        } else {
                            done.complete(apply.getAsBoolean());
                        }
                    });
            return done;
        }

        @Override
        public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
            return hold(
                    () -> {
                        map.put(key, value);
                        return true;
                    });
        }

        @Override
        public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
            return hold(() -> map.delete(key));
        }

        @Override
        public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
            throw new AssertionError("a session submitted a write and blocked on it");
        }

        @Override
        public boolean delete(ByteArrayWrapper key) {
            throw new AssertionError("a session submitted a write and blocked on it");
        }

        @Override
        public void clear() {
            throw new AssertionError("a session cleared and blocked on it");
        }

        @Override
        public CompletableFuture<Boolean> clearAsync() {
            return hold(
                    () -> {
                        map.clear();
                        return true;
                    });
        }
    }

    static byte[] resp(String... commands) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String command : commands) {
            String[] args = command.split(" ");
            bytes.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                bytes.writeBytes(
                        ("$" + arg.length() + "\r\n" + arg + "\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
            }
        }
        return bytes.toByteArray();
    }

    /** Reads exactly {@code expected.length()} bytes (or fewer if the server closes) as text. */
    static String read(Socket socket, String expected) throws IOException {
        byte[] bytes = socket.getInputStream().readNBytes(expected.length());
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** True if nothing arrives within a short wait (a reply that must not have been sent yet). */
    static boolean silent(Socket socket) throws IOException {
        socket.setSoTimeout(200);
        try {
            socket.getInputStream().read(); // a byte, or the end of the stream: not silent
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(15_000);
        }
    }

    static Socket connect(KeyValueServer server) throws IOException {
        Socket socket = new Socket();
        socket.connect(server.getLocalAddress(), 5_000);
        socket.setSoTimeout(15_000);
        return socket;
    }

    static KeyValueServer start(ServerModel model, Store store) throws IOException {
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0))
                                .withModel(model)
                                .withThreads(1),
                        store);
        server.start();
        return server;
    }

    @Test
    void aSecondConnectionOnTheSameLoopIsServedWhileTheFirstWaits() throws Exception {
        HeldStore store = new HeldStore();
        // One event loop: both connections are on it, so a blocking wait would stall the second.
        try (KeyValueServer server = start(ServerModel.NIO, store);
                Socket writer = connect(server);
                Socket reader = connect(server)) {
            writer.getOutputStream().write(resp("SET k v"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);

            reader.getOutputStream().write(resp("PING", "GET k"));
            assertThat(read(reader, "+PONG\r\n$-1\r\n"))
                    .as("served, and the write in flight is invisible")
                    .isEqualTo("+PONG\r\n$-1\r\n");
            assertThat(silent(writer)).as("no +OK before the write is done").isTrue();

            store.release();
            assertThat(read(writer, "+OK\r\n")).isEqualTo("+OK\r\n");
            reader.getOutputStream().write(resp("GET k"));
            assertThat(read(reader, "$1\r\nv\r\n")).isEqualTo("$1\r\nv\r\n");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "VIRTUAL", "NIO"})
    void aPipelineIsSubmittedTogetherAndAnsweredInOrder(ServerModel model) throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(model, store);
                Socket socket = connect(server)) {
            socket.getOutputStream()
                    .write(
                            resp(
                                    "SET a 1",
                                    "MSET b 2 c 3",
                                    "DEL x",
                                    "GET a",
                                    "DEL a b",
                                    "GET a",
                                    "SET d 4",
                                    "PING",
                                    "FLUSHALL",
                                    "GET c"));
            // The SET, the MSET's two pairs and the DEL are in flight together before anyone waits.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 4);
            assertThat(silent(socket)).isTrue();
            String expected =
                    "+OK\r\n+OK\r\n:0\r\n$1\r\n1\r\n:2\r\n$-1\r\n+OK\r\n+PONG\r\n+OK\r\n$-1\r\n";
            // Each GET, PING, ... behind writes waits for them: keep releasing the next group.
            Thread releaser =
                    Thread.ofPlatform()
                            .daemon()
                            .start(
                                    () -> {
                                        while (!Thread.currentThread().isInterrupted()) {
                                            store.release();
                                            try {
                                                Thread.sleep(5);
                                            } catch (InterruptedException e) {
                                                return;
                                            }
                                        }
                                    });
            try {
                assertThat(read(socket, expected)).isEqualTo(expected);
            } finally {
                releaser.interrupt();
            }
            assertThat(store.submitted())
                    .isEqualTo(8); // SET, 2 MSET pairs, DEL, 2 DEL keys, SET, FLUSHALL
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void aHalfClosedConnectionGetsEveryReplyOnceItsWritesAreDone(ServerModel model)
            throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(model, store);
                Socket socket = connect(server)) {
            socket.getOutputStream().write(resp("SET a 1", "SET b 2", "DEL a"));
            socket.shutdownOutput();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 3);
            store.release();
            byte[] all = socket.getInputStream().readAllBytes(); // to the server's close
            assertThat(new String(all, StandardCharsets.US_ASCII))
                    .isEqualTo("+OK\r\n+OK\r\n:1\r\n");
        }
    }

    @Test
    void aConnectionClosedWhileItsWritesWaitIsFreedOnceTheyComplete() throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(ServerModel.NIO, store)) {
            try (Socket socket = connect(server)) {
                socket.getOutputStream().write(resp("SET a 1", "GET a"));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
            }
            assertThat(server.getOpenConnections()).as("still waiting for its write").isEqualTo(1);
            store.release();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> server.getOpenConnections() == 0);
            try (Socket other = connect(server)) {
                other.getOutputStream().write(resp("GET a"));
                assertThat(read(other, "$1\r\n1\r\n"))
                        .as("the write was kept; the loop goes on")
                        .isEqualTo("$1\r\n1\r\n");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void failedWritesAnswerErrorsInOrderAndAreNotApplied(ServerModel model) throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(model, store);
                Socket socket = connect(server)) {
            socket.getOutputStream().write(resp("SET a 1", "MSET b 2 c 3", "GET a", "PING"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 3);
            store.fail("disk on fire");
            String error = "-ERR not stored: disk on fire\r\n";
            String expected = error + error + "$-1\r\n+PONG\r\n";
            assertThat(read(socket, expected)).isEqualTo(expected);
        }
    }

    @Test
    void oneConnectionHasAtMostTheBoundInFlight() throws Exception {
        // One read holding more writes than the bound (a server reads at most its buffer at once,
        // so the session is fed directly): decoding stops at the bound until they are answered.
        HeldStore store = new HeldStore();
        int n = PendingReplies.MAX_IN_FLIGHT + 300;
        String[] sets = new String[n];
        for (int i = 0; i < n; i++) {
            sets[i] = "SET k" + i + " v";
        }
        byte[] bytes = resp(sets);
        SessionFeeder feeder =
                new SessionFeeder(
                        new ProtocolSession(new ServerContext(store, ServerOptions.defaults())));
        feeder.awaitWrites = false;
        assertThat(feeder.feed(bytes, 0, bytes.length))
                .isEqualTo(dbf0.base.server.ByteSession.Next.AWAIT);
        assertThat(store.submitted())
                .as("decoding stopped at the bound")
                .isEqualTo(PendingReplies.MAX_IN_FLIGHT);
        assertThat(feeder.output.toByteArray()).isEmpty();
        assertThat(feeder.session.awaiting()).isNotDone();
        store.release();
        assertThat(feeder.session.awaiting()).isDone();
        assertThat(feeder.resume()).isEqualTo(dbf0.base.server.ByteSession.Next.AWAIT);
        assertThat(store.submitted()).isEqualTo(n);
        store.release();
        assertThat(feeder.resume()).isEqualTo(dbf0.base.server.ByteSession.Next.READ_MORE);
        assertThat(new String(feeder.output.toByteArray(), StandardCharsets.US_ASCII))
                .isEqualTo("+OK\r\n".repeat(n));
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "NIO"})
    void v2WritesAndABatchWaitWithoutBlockingAndKeepTheirOrder(ServerModel model) throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(model, store);
                Socket socket = connect(server)) {
            var requests =
                    new dbf0.kv.protocol.Request[] {
                        new dbf0.kv.protocol.Request.Set(
                                ByteArrayWrapper.of('a'), ByteArrayWrapper.of('1')),
                        new dbf0.kv.protocol.Request.Batch(
                                java.util.List.of(
                                        new dbf0.kv.protocol.Request.Set(
                                                ByteArrayWrapper.of('b'), ByteArrayWrapper.of('2')),
                                        new dbf0.kv.protocol.Request.Get(ByteArrayWrapper.of('b')),
                                        new dbf0.kv.protocol.Request.Delete(
                                                ByteArrayWrapper.of('a')),
                                        new dbf0.kv.protocol.Request.Get(
                                                ByteArrayWrapper.of('a')))),
                        new dbf0.kv.protocol.Request.Get(ByteArrayWrapper.of('b'))
                    };
            socket.getOutputStream().write(V2SessionTest.session(requests));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
            store.release(); // the SET; then the batch's two writes are submitted together
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 2);
            store.release();
            var expected =
                    java.util.List.of(
                            new dbf0.kv.protocol.Response.Ok(),
                            new dbf0.kv.protocol.Response.Batch(
                                    java.util.List.of(
                                            new dbf0.kv.protocol.Response.Ok(),
                                            new dbf0.kv.protocol.Response.Value(
                                                    ByteArrayWrapper.of('2')),
                                            new dbf0.kv.protocol.Response.Ok(),
                                            new dbf0.kv.protocol.Response.NotFound())),
                            new dbf0.kv.protocol.Response.Value(ByteArrayWrapper.of('2')));
            socket.shutdownOutput();
            assertThat(V2SessionTest.replies(socket.getInputStream().readAllBytes()))
                    .isEqualTo(expected);
        }
    }

    @Test
    void aV1SetWaitsWithoutBlockingTheLoopAndClosesOnceDoneOrFailed() throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(ServerModel.NIO, store)) {
            ByteArrayWrapper key = ByteArrayWrapper.of('a');
            try (Socket v1 = connect(server);
                    Socket other = connect(server)) {
                v1.getOutputStream()
                        .write(dbf0.kv.protocol.V1Codec.encodeSet(key, ByteArrayWrapper.of('1')));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
                other.getOutputStream().write(resp("PING"));
                assertThat(read(other, "+PONG\r\n")).isEqualTo("+PONG\r\n");
                assertThat(silent(v1)).as("v1 closes only once its SET is done").isTrue();
                store.release();
                assertThat(v1.getInputStream().read()).as("closed, no reply").isEqualTo(-1);
                assertThat(store.get(key)).isEqualTo(ByteArrayWrapper.of('1'));
            }
            try (Socket v1 = connect(server)) {
                v1.getOutputStream()
                        .write(dbf0.kv.protocol.V1Codec.encodeSet(key, ByteArrayWrapper.of('2')));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
                store.fail("disk on fire");
                assertThat(v1.getInputStream().read()).as("closed, nobody to tell").isEqualTo(-1);
                assertThat(store.get(key)).isEqualTo(ByteArrayWrapper.of('1'));
            }
        }
    }

    @Test
    void aConnectionWaitingForItsWritesIsNotClosedAsIdle() throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0))
                                .withModel(ServerModel.NIO)
                                .withThreads(1)
                                .withIdleTimeout(Duration.ofMillis(200)),
                        store)) {
            server.start();
            try (Socket socket = connect(server)) {
                socket.getOutputStream().write(resp("SET a 1"));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
                Thread.sleep(
                        1_000); // five idle timeouts: the server, not the client, is the slow one
                assertThat(server.getOpenConnections()).isEqualTo(1);
                store.release();
                assertThat(read(socket, "+OK\r\n")).isEqualTo("+OK\r\n");
            }
        }
    }

    @Test
    void aBatchWhoseWriteFailsAnswersErrorsForItAndForTheReadsOfIt() throws Exception {
        HeldStore store = new HeldStore();
        try (KeyValueServer server = start(ServerModel.NIO, store);
                Socket socket = connect(server)) {
            socket.getOutputStream()
                    .write(
                            V2SessionTest.session(
                                    new dbf0.kv.protocol.Request.Batch(
                                            java.util.List.of(
                                                    new dbf0.kv.protocol.Request.Set(
                                                            ByteArrayWrapper.of('b'),
                                                            ByteArrayWrapper.of('2')),
                                                    new dbf0.kv.protocol.Request.Get(
                                                            ByteArrayWrapper.of('b')),
                                                    new dbf0.kv.protocol.Request.Get(
                                                            ByteArrayWrapper.of('c'))))));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() == 1);
            store.fail("disk on fire");
            socket.shutdownOutput();
            var replies = V2SessionTest.replies(socket.getInputStream().readAllBytes());
            assertThat(replies).hasSize(1);
            var elements = ((dbf0.kv.protocol.Response.Batch) replies.get(0)).replies();
            assertThat(elements.get(0))
                    .isEqualTo(new dbf0.kv.protocol.Response.Error("not stored: disk on fire"));
            assertThat(elements.get(1))
                    .as("the value read from the failed write is not shown")
                    .isInstanceOf(dbf0.kv.protocol.Response.Error.class);
            assertThat(elements.get(2)).isEqualTo(new dbf0.kv.protocol.Response.NotFound());
            assertThat(store.get(ByteArrayWrapper.of('b'))).isNull();
        }
    }
}
