package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.kv.storage.MapBackends;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every pool worker held by a client that trickles bytes (so the idle timeout never fires for it):
 * a new connection waits in the pool's queue, and that wait is bounded by the idle timeout, after
 * which it is closed and counted. Virtual and nio have no such queue and answer at once.
 */
@Timeout(30)
class PoolSaturationTest {

    private static final Duration IDLE = Duration.ofMillis(1_000);

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void aConnectionWaitingForABusyPoolIsClosedAfterTheIdleTimeoutOthersAnswerAtOnce(
            ServerModel model) throws Exception {
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        List<Socket> holders = new ArrayList<>();
        try (KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withModel(model)
                                .withThreads(2)
                                .withIdleTimeout(IDLE),
                        MapBackends.create("concurrent"))) {
            server.start();
            for (int i = 0; i < 2; i++) {
                Socket holder = V1.connect(server.getLocalAddress());
                // A v2 frame announcing 1,000 bytes, then one byte every 200 ms: busy, never idle,
                // never done.
                holder.getOutputStream()
                        .write(new byte[] {(byte) 0xDB, 2, 0, 0, 0x03, (byte) 0xE8});
                holders.add(holder);
            }
            trickle.scheduleAtFixedRate(
                    () -> {
                        for (Socket holder : holders) {
                            try {
                                holder.getOutputStream().write('P');
                            } catch (IOException ignored) {
                                // a model that dropped it: nothing to keep alive
                            }
                        }
                    },
                    200,
                    200,
                    TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.getOpenConnections() >= 2);

            try (Socket client = V1.connect(server.getLocalAddress())) {
                long start = System.nanoTime();
                client.getOutputStream().write(RawV2.PREAMBLE);
                client.getOutputStream().write(RawV2.frame(RawV2.ping()));
                InputStream in = client.getInputStream();
                byte[] reply = RawV2.readReply(in);
                double waitedMillis = (System.nanoTime() - start) / 1e6;
                if (model == ServerModel.POOL) {
                    assertThat(reply).as("closed unserved").isNull();
                    assertThat(waitedMillis)
                            .isBetween(IDLE.toMillis() * 0.9, IDLE.toMillis() + 2_000.0);
                    // the client can see the close before the server has counted it
                    await().atMost(Duration.ofSeconds(5))
                            .untilAsserted(
                                    () -> assertThat(server.getConnectionsFailed()).isEqualTo(1));
                } else {
                    assertThat(reply).containsExactly('K');
                    assertThat(waitedMillis).isLessThan(1_000.0);
                }
            }
            // Socket.isClosed() says only whether this side closed it; ask the server instead. The
            // two busy holders are still connected and were never counted as failed.
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(
                            () ->
                                    assertThat(server.getOpenConnections())
                                            .as("the holders, still open")
                                            .isEqualTo(2));
            assertThat(server.getConnectionsFailed()).isEqualTo(model == ServerModel.POOL ? 1 : 0);
        } finally {
            trickle.shutdownNow();
            for (Socket holder : holders) {
                holder.close();
            }
        }
    }
}
