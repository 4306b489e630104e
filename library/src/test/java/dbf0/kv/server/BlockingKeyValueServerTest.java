package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.storage.ForwardingStore;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's path on the thread-per-connection models: v1 served straight through, and the first
 * bytes of any other protocol handed on to its session intact.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockingKeyValueServerTest {

    /** A store whose put blocks until released, as a put under a log waits for its fsync. */
    static final class SlowPutStore extends ForwardingStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            super.put(key, value);
        }
    }

    static KeyValueServer start(ServerModel model, dbf0.kv.storage.Store store) throws Exception {
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0))
                                .withModel(model)
                                .withThreads(2),
                        store);
        server.start();
        return server;
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "VIRTUAL"})
    void aV1SetClosesTheConnectionOnlyOnceTheStoreHasTheValue(ServerModel model) throws Exception {
        SlowPutStore store = new SlowPutStore();
        ByteArrayWrapper key = ByteArrayWrapper.of('k');
        try (KeyValueServer server = start(model, store);
                Socket v1 = V1.connect(server.getLocalAddress())) {
            v1.getOutputStream().write(V1Codec.encodeSet(key, ByteArrayWrapper.of('v')));
            assertThat(store.entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(AwaitingWritesTest.silent(v1)).as("still open while the put waits").isTrue();
            store.release.countDown();
            assertThat(v1.getInputStream().read()).as("closed, no reply").isEqualTo(-1);
            assertThat(store.get(key)).isEqualTo(ByteArrayWrapper.of('v'));
            assertThat(V1.get(server.getLocalAddress(), key)).isEqualTo(ByteArrayWrapper.of('v'));
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "VIRTUAL"})
    void otherProtocolsGetTheFirstBytesWhateverHowTheyArrive(ServerModel model) throws Exception {
        try (KeyValueServer server = start(model, new ForwardingStore());
                Socket trickled = V1.connect(server.getLocalAddress());
                Socket pipelined = V1.connect(server.getLocalAddress())) {
            // the first byte alone, then the rest: the byte read to choose the protocol is not lost
            trickled.getOutputStream().write('*');
            trickled.getOutputStream().flush();
            Thread.sleep(100);
            trickled.getOutputStream()
                    .write("1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(
                            new String(
                                    trickled.getInputStream().readNBytes(7),
                                    StandardCharsets.US_ASCII))
                    .isEqualTo("+PONG\r\n");

            // far more than the first read's buffer, in one write: every command is answered
            ByteArrayOutputStream commands = new ByteArrayOutputStream();
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 500; i++) {
                String value = "v" + i;
                commands.writeBytes(
                        ("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$"
                                        + value.length()
                                        + "\r\n"
                                        + value
                                        + "\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                expected.append("+OK\r\n$")
                        .append(value.length())
                        .append("\r\n")
                        .append(value)
                        .append("\r\n");
            }
            pipelined.setSoTimeout(10_000);
            pipelined.getOutputStream().write(commands.toByteArray());
            byte[] replies = pipelined.getInputStream().readNBytes(expected.length());
            assertThat(new String(replies, StandardCharsets.US_ASCII))
                    .isEqualTo(expected.toString());
        }
    }

    /**
     * Commands trickling in while the server reads the first byte and hands the connection to its
     * session: a buffer that read ahead of what it handed on would lose some of them, and a later
     * reply would answer the wrong command.
     */
    @ParameterizedTest
    @EnumSource(
            value = ServerModel.class,
            names = {"POOL", "VIRTUAL"})
    void bytesArrivingDuringTheHandOffAreNeitherLostNorReordered(ServerModel model)
            throws Exception {
        try (KeyValueServer server = start(model, new ForwardingStore())) {
            for (int connection = 0; connection < 100; connection++) {
                ByteArrayOutputStream commands = new ByteArrayOutputStream();
                StringBuilder expected = new StringBuilder();
                for (int i = 0; i < 40; i++) {
                    String word = connection + "-" + i;
                    commands.writeBytes(
                            ("*2\r\n$4\r\nECHO\r\n$" + word.length() + "\r\n" + word + "\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                    expected.append('$').append(word.length()).append("\r\n").append(word);
                    expected.append("\r\n");
                }
                byte[] bytes = commands.toByteArray();
                try (Socket socket = V1.connect(server.getLocalAddress())) {
                    socket.setTcpNoDelay(true);
                    socket.setSoTimeout(10_000);
                    for (int from = 0; from < bytes.length; from += 29) {
                        socket.getOutputStream()
                                .write(bytes, from, Math.min(29, bytes.length - from));
                    }
                    byte[] replies = socket.getInputStream().readNBytes(expected.length());
                    assertThat(new String(replies, StandardCharsets.US_ASCII))
                            .as("connection %d", connection)
                            .isEqualTo(expected.toString());
                }
            }
        }
    }
}
