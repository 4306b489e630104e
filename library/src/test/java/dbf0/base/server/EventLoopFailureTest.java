package dbf0.base.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.base.io.OutputBuffer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An event loop that dies of something no connection can be blamed for (here the session factory
 * throws an Error) must not leave a half-alive server whose acceptor hands sockets to a dead loop:
 * the server fails loudly, closes its port, and completes failure().
 */
@Timeout(30)
class EventLoopFailureTest {

    /** Echoes nothing; enough to hold a connection. */
    private static final class Quiet implements ByteSession {
        @Override
        public Next onRead(ByteBuffer in, OutputBuffer out) {
            in.position(in.limit());
            return Next.READ_MORE;
        }

        @Override
        public void onEndOfStream(int unconsumed) {}
    }

    @Test
    @SuppressWarnings("try") // the second connection only has to exist
    void aDeadLoopShutsTheServerDownInsteadOfLeavingItHalfAlive() throws Exception {
        AtomicInteger made = new AtomicInteger();
        EventLoopServer server =
                new EventLoopServer(
                        "failing",
                        new InetSocketAddress("127.0.0.1", 0),
                        1,
                        () -> {
                            if (made.incrementAndGet() == 2) {
                                throw new StackOverflowError("simulated by the test");
                            }
                            return new Quiet();
                        },
                        100,
                        Duration.ofSeconds(30));
        try {
            server.start();
            InetSocketAddress address = server.getLocalAddress();
            try (Socket first = new Socket(address.getAddress(), address.getPort());
                    Socket second = new Socket(address.getAddress(), address.getPort())) {
                Throwable cause = server.failure().get(10, TimeUnit.SECONDS);
                assertThat(cause).isInstanceOf(StackOverflowError.class);
                first.setSoTimeout(10_000);
                assertThat(first.getInputStream().read())
                        .as("open connections are closed")
                        .isEqualTo(-1);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.getOpenConnections() == 0);
            // The port is closed (closing runs on its own thread), so a new client is refused at
            // once instead of hanging.
            await().atMost(Duration.ofSeconds(10)).until(() -> refused(address));
        } finally {
            server.close();
        }
    }

    /** Whether a connection to the address is refused (accepted, it is closed again at once). */
    @SuppressWarnings("try") // the connection only has to be made
    private static boolean refused(InetSocketAddress address) throws IOException {
        try (Socket accepted = new Socket(address.getAddress(), address.getPort())) {
            return false;
        } catch (ConnectException e) {
            return true;
        }
    }
}
