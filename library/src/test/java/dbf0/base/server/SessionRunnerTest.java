package dbf0.base.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.io.OutputBuffer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The thread-per-connection driver, over a real loopback socket. */
class SessionRunnerTest {

    /** Echoes every byte it is given. */
    private static final class Echo implements ByteSession {
        @Override
        public Next onRead(ByteBuffer in, OutputBuffer out) {
            byte[] bytes = new byte[in.remaining()];
            in.get(bytes);
            out.put(bytes);
            return Next.READ_MORE;
        }

        @Override
        public void onEndOfStream(int unconsumed) {}
    }

    @Test
    void repliesLeaveWithoutNaglesDelay() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort())) {
            client.setSoTimeout(5_000);
            Socket accepted = listener.accept();
            CompletableFuture<Void> served =
                    CompletableFuture.runAsync(
                            () -> {
                                try (accepted) {
                                    SessionRunner.run(accepted, new Echo());
                                } catch (IOException e) {
                                    throw new RuntimeException(e);
                                }
                            });
            client.getOutputStream().write("ping".getBytes());
            InputStream in = client.getInputStream();
            assertThat(in.readNBytes(4)).isEqualTo("ping".getBytes());
            // the runner has served a read, so it set its options: small replies go out at once
            assertThat(accepted.getTcpNoDelay()).isTrue();
            client.shutdownOutput();
            served.get(5, TimeUnit.SECONDS);
        }
    }
}
