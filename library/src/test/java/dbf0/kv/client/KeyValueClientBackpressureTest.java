package dbf0.kv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client under server backpressure, against fake servers on 127.0.0.1 that behave like a
 * blocking thread-per-connection server: it reads a request, writes the whole reply, and only then
 * reads again. When replies pile up unread, it stops reading, and the client's writes block. The
 * client must keep reading replies while a writer is blocked, or both sides wait forever.
 */
@Timeout(60)
class KeyValueClientBackpressureTest {

    private static final int BIG = 256 * 1024;

    /**
     * A loopback server that runs {@code handler} on one accepted connection, then closes
     * everything.
     */
    private static final class FakeServer implements AutoCloseable {
        final ServerSocket listener;
        final List<Socket> accepted = new CopyOnWriteArrayList<>();
        final Thread thread;

        FakeServer(Handler handler) throws IOException {
            // Default buffer sizes: shrinking them makes loopback TCP crawl (Nagle and delayed
            // ACKs), which would look like a deadlock. Tens of MiB of traffic fill the defaults
            // anyway.
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            thread =
                    Thread.ofPlatform()
                            .daemon()
                            .name("fake-server")
                            .start(
                                    () -> {
                                        try (Socket socket = listener.accept()) {
                                            accepted.add(socket);
                                            socket.setTcpNoDelay(true);
                                            handler.handle(socket);
                                        } catch (IOException closed) {
                                            // the test closed us, or the client went away
                                        }
                                    });
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @FunctionalInterface
    interface Handler {
        void handle(Socket socket) throws IOException;
    }

    /**
     * Answers each request before reading the next: a GET with a 256 KiB value, anything else OK.
     */
    private static void serveOneAtATime(Socket socket) throws IOException {
        InputStream in = new BufferedInputStream(socket.getInputStream());
        OutputStream out = new BufferedOutputStream(socket.getOutputStream());
        V2Codec.readPreamble(in);
        Response value = new Response.Value(new ByteArrayWrapper(new byte[BIG]));
        while (true) {
            DecodeResult.Complete<Request> request =
                    V2Codec.readRequest(in, ProtocolLimits.DEFAULTS);
            boolean isGet = request instanceof DecodeResult.Frame<Request>(Request.Get get);
            V2Codec.writeResponse(out, isGet ? value : new Response.Ok(), ProtocolLimits.DEFAULTS);
            out.flush(); // blocks while the client is not reading: this is the backpressure
        }
    }

    static ByteArrayWrapper key(int thread, int i) {
        return new ByteArrayWrapper(
                ("key-" + thread + "-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /**
     * Four threads share one client and pipeline large SETs and GETs with large replies: tens of
     * MiB each way, far more than the sockets' buffers hold, so the server soon stops reading while
     * its replies are unread. The client must still finish: its reader drains the replies, which
     * lets the server read again, which unblocks the writers.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @SuppressWarnings(
            "try") // closing inside the try is the point: close() must release the threads
    void pipelinedLargeRequestsAndRepliesFromManyThreadsComplete(boolean virtualThreads)
            throws Exception {
        try (FakeServer server = new FakeServer(KeyValueClientBackpressureTest::serveOneAtATime)) {
            KeyValueClient client =
                    KeyValueClient.connect(
                            server.address(), ProtocolLimits.DEFAULTS, Duration.ofSeconds(30));
            // Virtual callers too: on JDK 21, writers blocked inside a monitor would pin the
            // carriers the client's virtual reader thread needs.
            ExecutorService threads =
                    virtualThreads
                            ? Executors.newVirtualThreadPerTaskExecutor()
                            : Executors.newFixedThreadPool(4);
            boolean finished = false;
            try {
                List<Future<List<CompletableFuture<?>>>> workers = new ArrayList<>();
                ByteArrayWrapper big = new ByteArrayWrapper(new byte[BIG]);
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    workers.add(
                            threads.submit(
                                    () -> {
                                        List<CompletableFuture<?>> futures = new ArrayList<>();
                                        for (int i = 0; i < 40; i++) {
                                            futures.add(client.setAsync(key(thread, i), big));
                                            futures.add(client.getAsync(key(thread, i)));
                                        }
                                        return futures;
                                    }));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                int gets = 0;
                for (Future<List<CompletableFuture<?>>> worker : workers) {
                    for (CompletableFuture<?> future : within(worker, deadline)) {
                        Object reply = within(future, deadline);
                        if (reply instanceof ByteArrayWrapper value) {
                            assertThat(value.length()).isEqualTo(BIG);
                            gets++;
                        }
                    }
                }
                assertThat(gets).isEqualTo(4 * 40);
                finished = true;
            } finally {
                if (finished) {
                    closeWithin(client, server);
                } else {
                    server.close(); // after a failure: free the stuck threads without hiding the
                    // first message
                }
                threads.shutdownNow();
            }
        }
    }

    /** A server that accepts and never reads: the client's writes fill the socket and block. */
    @Test
    @SuppressWarnings("try") // closing inside the try is the point: close() must release the writer
    void closeUnblocksAWriterStuckOnAFullSocket() throws Exception {
        CountDownLatch testDone = new CountDownLatch(1);
        try (FakeServer server =
                new FakeServer(
                        socket -> {
                            try {
                                testDone.await(); // holds the connection, reading nothing, until
                                // the test is over
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        })) {
            KeyValueClient client =
                    KeyValueClient.connect(
                            server.address(), ProtocolLimits.DEFAULTS, Duration.ofSeconds(30));
            List<CompletableFuture<Void>> futures = new CopyOnWriteArrayList<>();
            AtomicInteger sent = new AtomicInteger();
            ByteArrayWrapper value = new ByteArrayWrapper(new byte[1024 * 1024]);
            Thread writer =
                    Thread.ofPlatform()
                            .daemon()
                            .name("stuck-writer")
                            .start(
                                    () -> {
                                        for (int i = 0;
                                                i < 1000;
                                                i++) { // 1 GiB: no socket buffer holds that
                                            futures.add(client.setAsync(key(0, i), value));
                                            sent.incrementAndGet();
                                        }
                                    });
            try {
                awaitStuck(sent, writer);
                Thread closer = Thread.ofPlatform().daemon().name("closer").start(client::close);
                closer.join(Duration.ofSeconds(5));
                assertThat(closer.isAlive())
                        .as("close() returns while a writer is blocked")
                        .isFalse();
                writer.join(Duration.ofSeconds(5));
                assertThat(writer.isAlive()).as("close() releases the blocked writer").isFalse();
                assertThat(futures).isNotEmpty();
                for (CompletableFuture<Void> future : futures) {
                    assertThat(future)
                            .failsWithin(Duration.ofSeconds(5))
                            .withThrowableOfType(ExecutionException.class)
                            .withCauseInstanceOf(ConnectionClosedException.class);
                }
            } finally {
                testDone.countDown();
                server.close(); // releases the writer even if close() did not
                writer.join(Duration.ofSeconds(5));
            }
        }
    }

    /**
     * Waits (at most 10 s) until the writer is blocked in a write: alive, inside the JDK's socket
     * code ({@code sun.nio.ch}), and no further request sent since the previous look. 1 GiB fits in
     * no socket buffer, so it must block; if it never does, the test server is reading after all.
     */
    private static void awaitStuck(AtomicInteger sent, Thread writer) {
        AtomicInteger lastSeen = new AtomicInteger(-1);
        await("the writer blocked in a socket write")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            int now = sent.get();
                            boolean inSocketWrite =
                                    java.util.Arrays.stream(writer.getStackTrace())
                                            .anyMatch(
                                                    frame ->
                                                            frame.getClassName()
                                                                    .startsWith("sun.nio.ch."));
                            return writer.isAlive()
                                    && inSocketWrite
                                    && lastSeen.getAndSet(now) == now;
                        });
    }

    private static <T> T within(Future<T> future, long deadlineNanos) throws Exception {
        try {
            return future.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return fail("deadlock: no progress within 20 s while the server applied backpressure");
        }
    }

    /**
     * Tears down in bounded time even if the client is deadlocked (then close() itself may hang).
     */
    private static void closeWithin(KeyValueClient client, FakeServer server) throws Exception {
        Thread closer = Thread.ofPlatform().daemon().name("closer").start(client::close);
        closer.join(Duration.ofSeconds(5));
        if (closer.isAlive()) {
            server.close(); // breaks the deadlock from the other side, so the threads can end
            closer.join(Duration.ofSeconds(5));
            fail("close() did not return within 5 s");
        }
    }
}
