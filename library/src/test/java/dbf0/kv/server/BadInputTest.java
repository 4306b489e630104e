package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Random;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input costs only its own connection: the server closes it, counts it once, and keeps serving
 * everybody else. The same cases run against every server model.
 */
@Timeout(30)
class BadInputTest {

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

    abstract static class Cases {

        private final ServerModel model;
        private KeyValueServer server;
        private InetSocketAddress address;

        Cases(ServerModel model) {
            this.model = model;
        }

        /**
         * Far above the 5 s that {@link #serverClosesAfter} waits, so that a close it sees is the
         * server refusing the bytes, never the idle timeout.
         */
        private static final Duration IDLE = Duration.ofSeconds(60);

        @BeforeEach
        void start() throws Exception {
            start(IDLE);
        }

        private void start(Duration idleTimeout) throws Exception {
            if (server != null) {
                server.close();
            }
            server =
                    new KeyValueServer(
                            ServerOptions.defaults()
                                    .withModel(model)
                                    .withThreads(2)
                                    .withIdleTimeout(idleTimeout),
                            MapBackends.create("concurrent"));
            server.start();
            address = server.getLocalAddress();
            V1.set(address, ByteArrayWrapper.of(7), ByteArrayWrapper.of(0x77));
        }

        @AfterEach
        void stop() {
            server.close();
        }

        /**
         * Sends raw bytes, optionally half-closes, and returns whether the server closed the
         * connection (after an error reply, if the bytes looked like v2) within 5 s; false if it
         * kept the connection open that long. The idle timeout is longer ({@link #IDLE}), so
         * without a half-close only a refusal of the bytes can close it.
         */
        private boolean serverClosesAfter(String hex, boolean halfClose) throws Exception {
            return serverClosesAfter(hex, halfClose, Duration.ofSeconds(5));
        }

        private boolean serverClosesAfter(String hex, boolean halfClose, Duration wait)
                throws Exception {
            try (Socket socket = V1.connect(address)) {
                socket.setSoTimeout((int) wait.toMillis());
                socket.getOutputStream().write(Hex.decodeHex(hex));
                if (halfClose) {
                    socket.shutdownOutput();
                }
                InputStream in = socket.getInputStream();
                try {
                    in.readAllBytes(); // returns at the server's close; the socket timeout
                    // bounds it
                    return true;
                } catch (SocketTimeoutException stillOpen) {
                    return false;
                } catch (SocketException reset) {
                    return true; // closed with unread bytes: a reset is a close too
                }
            }
        }

        private void othersStillServed() throws Exception {
            assertThat(V1.get(address, ByteArrayWrapper.of(7)))
                    .isEqualTo(ByteArrayWrapper.of(0x77));
        }

        /** The client sees the close before the server has counted it: waits for the count. */
        private void awaitFailures(long n) {
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(server.getConnectionsFailed()).isEqualTo(n));
        }

        @Test
        void validButUnfinishedInputKeepsTheConnectionOpen() throws Exception {
            // The helper can say no: half a v1 GET, not half-closed, is waited for, not refused.
            // (Waiting a second is the point here: "not closed" can only be seen by waiting.)
            assertThat(serverClosesAfter("6705", false, Duration.ofSeconds(1))).isFalse();
            othersStillServed();
        }

        @Test
        void unknownOpByteClosesThatConnectionOnly() throws Exception {
            assertThat(serverClosesAfter("780141", false)).isTrue();
            awaitFailures(1);
            othersStillServed();
        }

        @Test
        void truncatedFrameClosesThatConnectionOnly() throws Exception {
            assertThat(serverClosesAfter("67050102", true)).isTrue();
            awaitFailures(1);
            othersStillServed();
        }

        @Test
        void lengthPrefixAbove127ClosesThatConnectionOnly() throws Exception {
            assertThat(serverClosesAfter("73ff", false)).isTrue();
            awaitFailures(1);
            othersStillServed();
        }

        @Test
        void garbageBytesCostOneConnectionEach() throws Exception {
            Random random = new Random(42);
            int sent = 0;
            for (int i = 0; i < 50; i++) {
                byte[] garbage = new byte[1 + random.nextInt(64)];
                random.nextBytes(garbage);
                byte first = garbage[0];
                if (first == 's'
                        || first == 'g'
                        || first == (byte) 0xDB
                        || first == '*'
                        || (first >= 'A' && first <= 'Z')) {
                    garbage[0] = 'x'; // no protocol starts with this: unambiguously bad
                }
                // No half-close: the close must come from the server refusing the first byte.
                assertThat(serverClosesAfter(Hex.encodeHexString(garbage), false))
                        .as(Hex.encodeHexString(garbage))
                        .isTrue();
                sent++;
            }
            awaitFailures(sent);
            othersStillServed();
        }

        @Test
        void silentClientIsDroppedAfterTheReadTimeoutWhileOthersAreServed() throws Exception {
            start(Duration.ofMillis(500));
            try (Socket silent = V1.connect(address)) {
                silent.setSoTimeout(5_000);
                long start = System.nanoTime();
                othersStillServed(); // served while the silent client holds a worker
                assertThat(silent.getInputStream().read()).isEqualTo(-1);
                assertThat((System.nanoTime() - start) / 1e6).isBetween(300.0, 4_000.0);
            }
            awaitFailures(1);
        }

        @Test
        void clientThatConnectsAndClosesCostsNothingElse() throws Exception {
            for (int i = 0; i < 20; i++) {
                V1.connect(address).close();
            }
            awaitFailures(20);
            othersStillServed();
        }
    }
}
