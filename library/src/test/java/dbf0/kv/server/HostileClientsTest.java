package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dbf0.common.ByteArrayWrapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an attacker found with each server model, each case speaking raw bytes to a real server on
 * loopback: replies past the high-water mark, half-closed pipelines, oversized batch and MGET
 * replies, HTTP requests from a browser, a session that throws an Error, a taken port. The memory
 * side of the same attacks runs in a small child JVM (MemoryBoundTest, in the lab module, which
 * starts the server through its command line).
 */
@Timeout(60)
class HostileClientsTest {

    @Nested
    class Pool extends Cases {
        Pool() {
            super(ServerModel.POOL);
        }
    }

    @Nested
    class Virtual extends Cases {
        Virtual() {
            super(ServerModel.VIRTUAL);
        }
    }

    @Nested
    class Nio extends Cases {
        Nio() {
            super(ServerModel.NIO);
        }
    }

    /**
     * A map whose get of one key throws OutOfMemoryError, as a session running out of heap would.
     */
    static final class ThrowingMap extends ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper> {
        static final ByteArrayWrapper BOMB =
                new ByteArrayWrapper("bomb".getBytes(StandardCharsets.US_ASCII));

        @Override
        public ByteArrayWrapper get(Object key) {
            if (BOMB.equals(key)) {
                throw new OutOfMemoryError("simulated by the test");
            }
            return super.get(key);
        }
    }

    abstract static class Cases {

        private final ServerModel model;
        private KeyValueServer server;
        private java.util.Map<ByteArrayWrapper, ByteArrayWrapper>
                map; // the one the server was started over

        Cases(ServerModel model) {
            this.model = model;
        }

        @AfterEach
        void stop() {
            if (server != null) {
                server.close();
            }
        }

        private KeyValueServer start(ServerOptions options) throws IOException {
            return start(options, new ThrowingMap());
        }

        private KeyValueServer start(
                ServerOptions options, java.util.Map<ByteArrayWrapper, ByteArrayWrapper> map)
                throws IOException {
            this.map = map;
            server = new KeyValueServer(options.withModel(model).withThreads(2), map);
            server.start();
            return server;
        }

        private Socket connect() throws IOException {
            Socket socket = V1.connect(server.getLocalAddress());
            socket.setSoTimeout(10_000);
            return socket;
        }

        private static byte[] value(int size) {
            byte[] v = new byte[size];
            Arrays.fill(v, (byte) 'v');
            return v;
        }

        /**
         * Writes on another thread, so that a test reading replies never deadlocks on full buffers.
         */
        private static CompletableFuture<Void> writeThenMaybeHalfClose(
                Socket socket, byte[] bytes, boolean halfClose) {
            return CompletableFuture.runAsync(
                    () -> {
                        try {
                            OutputStream out = socket.getOutputStream();
                            out.write(bytes);
                            out.flush();
                            if (halfClose) {
                                socket.shutdownOutput();
                            }
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    });
        }

        private void v2Set(String key, byte[] value) throws IOException {
            try (Socket socket = connect()) {
                socket.getOutputStream().write(RawV2.PREAMBLE);
                socket.getOutputStream().write(RawV2.frame(RawV2.set(key, value)));
                assertThat(RawV2.readReply(socket.getInputStream())).containsExactly('K');
            }
        }

        /**
         * 100 pipelined GETs of a 256 KiB value in one write make 25 MiB of replies: the session
         * pauses at the 1 MiB high-water mark and must be resumed on the input already buffered, as
         * no further bytes will come. With halfClose, the peer's end of stream arrives while
         * paused.
         */
        private void pipelinedLargeGets(boolean halfClose) throws Exception {
            start(ServerOptions.defaults());
            int size = 256 * 1024;
            v2Set("big", value(size));
            try (Socket socket = connect()) {
                byte[] gets = RawV2.repeat(RawV2.frame(RawV2.get("big")), 100);
                byte[] all = new byte[2 + gets.length];
                System.arraycopy(RawV2.PREAMBLE, 0, all, 0, 2);
                System.arraycopy(gets, 0, all, 2, gets.length);
                CompletableFuture<Void> written = writeThenMaybeHalfClose(socket, all, halfClose);
                InputStream in = socket.getInputStream();
                for (int i = 0; i < 100; i++) {
                    byte[] reply = RawV2.readReply(in);
                    assertThat(reply).as("reply %d", i).isNotNull();
                    assertThat(reply[0]).isEqualTo((byte) 'V');
                    assertThat(reply.length).isEqualTo(1 + 4 + size);
                }
                written.get();
                if (halfClose) {
                    assertThat(RawV2.readReply(in)).as("then the server closes").isNull();
                }
            }
        }

        @Test
        void pipelinedRepliesPastTheHighWaterMarkAreAllSent() throws Exception {
            pipelinedLargeGets(false);
        }

        @Test
        void halfCloseWhilePausedAtTheHighWaterMarkStillGetsEveryReply() throws Exception {
            pipelinedLargeGets(true);
        }

        @Test
        void halfCloseAfter40000PipelinedPingsGetsAll40000Replies() throws Exception {
            start(ServerOptions.defaults());
            try (Socket socket = connect()) {
                byte[] pings = RawV2.repeat(RawV2.frame(RawV2.ping()), 40_000);
                byte[] all = new byte[2 + pings.length];
                System.arraycopy(RawV2.PREAMBLE, 0, all, 0, 2);
                System.arraycopy(pings, 0, all, 2, pings.length);
                CompletableFuture<Void> written = writeThenMaybeHalfClose(socket, all, true);
                InputStream in = new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16);
                int replies = 0;
                for (byte[] reply; (reply = RawV2.readReply(in)) != null; ) {
                    assertThat(reply).containsExactly('K');
                    replies++;
                }
                written.get();
                assertThat(replies).isEqualTo(40_000);
            }
        }

        @Test
        void batchWhoseReplyWouldPassTheFrameLimitIsRefusedWithNothingApplied() throws Exception {
            start(ServerOptions.defaults());
            v2Set("big", value(1 << 20));
            byte[][] ops = new byte[18][];
            ops[0] = RawV2.set("written", new byte[] {1});
            for (int i = 1; i < ops.length; i++) {
                ops[i] = RawV2.get("big"); // 17 MiB of values: more than the 16 MiB frame limit
            }
            try (Socket socket = connect()) {
                OutputStream out = socket.getOutputStream();
                out.write(RawV2.PREAMBLE);
                out.write(RawV2.frame(RawV2.batch(ops)));
                InputStream in = socket.getInputStream();
                assertThat(RawV2.errorMessage(RawV2.readReply(in)))
                        .contains("frame limit")
                        .contains("nothing applied");
                out.write(RawV2.frame(RawV2.get("written")));
                assertThat(RawV2.readReply(in))
                        .as("the batch's SET was not applied")
                        .containsExactly('N');
                // A batch just under the limit still works on the same connection.
                out.write(
                        RawV2.frame(
                                RawV2.batch(
                                        RawV2.get("big"), RawV2.get("big"), RawV2.get("written"))));
                byte[] batch = RawV2.readReply(in);
                assertThat(batch[0])
                        .as(new String(batch, StandardCharsets.UTF_8))
                        .isEqualTo((byte) 'B');
                assertThat(batch.length).isEqualTo(1 + 4 + 2 * (1 + 4 + (1 << 20)) + 1);
            }
            assertThat(server.getConnectionsFailed()).isZero();
        }

        @Test
        void mgetWhoseReplyWouldPassTheCapAnswersAnErrorAndTheConnectionGoesOn() throws Exception {
            start(ServerOptions.defaults());
            v2Set("big", value(1 << 20));
            StringBuilder mget = new StringBuilder("*401\r\n$4\r\nMGET\r\n");
            for (int i = 0; i < 400; i++) {
                mget.append("$3\r\nbig\r\n"); // 3.6 KB asking for 400 MiB
            }
            try (Socket socket = connect()) {
                socket.getOutputStream()
                        .write(
                                mget.append("*1\r\n$4\r\nPING\r\n")
                                        .toString()
                                        .getBytes(StandardCharsets.US_ASCII));
                byte[] expected =
                        ("-ERR MGET reply would exceed "
                                        + (16 << 20)
                                        + " bytes; ask for fewer keys at a time\r\n+PONG\r\n")
                                .getBytes(StandardCharsets.US_ASCII);
                assertThat(socket.getInputStream().readNBytes(expected.length)).isEqualTo(expected);
            }
        }

        @Test
        void browserPostOfInlineCommandsIsRefusedBeforeAnythingRuns() throws Exception {
            start(ServerOptions.defaults());
            v2Set("kept", new byte[] {7});
            String body = "SET pwned 1\r\nFLUSHALL\r\n";
            String request =
                    "POST / HTTP/1.1\r\n"
                            + "Host: 127.0.0.1:"
                            + server.getLocalAddress().getPort()
                            + "\r\n"
                            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101"
                            + " Firefox/128.0\r\n"
                            + "Accept: */*\r\n"
                            + "Content-Type: text/plain;charset=UTF-8\r\n"
                            + "Content-Length: "
                            + body.length()
                            + "\r\n"
                            + "Origin: http://evil.example\r\n"
                            + "Connection: keep-alive\r\n"
                            + "\r\n"
                            + body;
            try (Socket socket = connect()) {
                socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                assertThat(readUntilClosed(socket)).as("closed with no reply at all").isEmpty();
            }
            assertThat(map)
                    .containsKey(new ByteArrayWrapper("kept".getBytes(StandardCharsets.US_ASCII)))
                    .doesNotContainKey(
                            new ByteArrayWrapper("pwned".getBytes(StandardCharsets.US_ASCII)));
        }

        @Test
        void httpGetRequestLineAndHostHeaderCloseTheConnection() throws Exception {
            start(ServerOptions.defaults());
            for (String request :
                    new String[] {"GET /favicon.ico HTTP/1.1\r\n", "Host: localhost:9000\r\n"}) {
                try (Socket socket = connect()) {
                    socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                    assertThat(readUntilClosed(socket)).as(request).isEmpty();
                }
            }
            // Ordinary inline commands still work: the default keeps them on.
            try (Socket socket = connect()) {
                socket.getOutputStream()
                        .write("PING\r\nGET nothing\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(socket.getInputStream().readNBytes(12))
                        .isEqualTo("+PONG\r\n$-1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        }

        @Test
        void noInlineRefusesInlineCommandsButServesArrays() throws Exception {
            start(ServerOptions.defaults().withInlineCommands(false));
            try (Socket socket = connect()) {
                socket.getOutputStream().write("SET k v\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(readUntilClosed(socket), StandardCharsets.US_ASCII))
                        .startsWith("-ERR inline commands are off");
            }
            assertThat(map).isEmpty();
            try (Socket socket = connect()) {
                socket.getOutputStream()
                        .write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(socket.getInputStream().readNBytes(7))
                        .isEqualTo("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        }

        @Test
        void anErrorInOneSessionCostsThatConnectionAndTheServerGoesOn() throws Exception {
            start(ServerOptions.defaults());
            for (int round = 0; round < 3; round++) {
                try (Socket bomb = connect()) {
                    bomb.getOutputStream().write(RawV2.PREAMBLE);
                    bomb.getOutputStream().write(RawV2.frame(RawV2.get("bomb")));
                    assertThat(readUntilClosed(bomb)).as("dropped without a reply").isEmpty();
                }
                v2Set("after" + round, new byte[] {1}); // every loop and worker still serves
            }
            assertThat(server.failure()).isNotDone();
            // the client can see its connection closed before the server has counted it
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(server.getConnectionsFailed()).isEqualTo(3));
        }

        @Test
        void bindErrorNamesTheAddress() throws Exception {
            start(ServerOptions.defaults());
            int port = server.getLocalAddress().getPort();
            try (KeyValueServer second =
                    new KeyValueServer(
                            ServerOptions.defaults()
                                    .withModel(model)
                                    .withBindAddress(
                                            new java.net.InetSocketAddress("127.0.0.1", port)),
                            new ConcurrentHashMap<>())) {
                assertThatThrownBy(second::start)
                        .isInstanceOf(java.net.BindException.class)
                        .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": ")
                        .hasMessageContaining("in use");
            }
        }

        /** All bytes until the server closes (a reset after unread input counts as closed too). */
        private static byte[] readUntilClosed(Socket socket) throws IOException {
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] chunk = new byte[4096];
            try {
                for (int n; (n = in.read(chunk)) >= 0; ) {
                    got.write(chunk, 0, n);
                }
            } catch (SocketException reset) {
                // closed with our bytes unread: still closed
            }
            return got.toByteArray();
        }
    }
}
