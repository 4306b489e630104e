package dbf0.base.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.io.OutputBuffer;
import dbf0.common.FlushingThread;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection whose reply waits for the flush its loop's turn owes is answered right after that
 * flush, with no future made or completed; if the flush did not finish its work, the loop falls
 * back to the session's future. Each test sends one byte and waits for one reply byte.
 */
@Timeout(30)
class EventLoopTurnTest {

    /**
     * Consumes one byte, owes a flush and waits; answers 'A' once its work is done. The work is
     * done by the owed flush if {@code flushDoesTheWork}, else by whoever completes {@link #work}.
     */
    private static final class WaitsForAFlush implements ByteSession {
        final boolean flushDoesTheWork;
        final CompletableFuture<Void> work = new CompletableFuture<>();
        final AtomicInteger flushes = new AtomicInteger();
        final AtomicInteger futuresAsked = new AtomicInteger();
        boolean waiting;

        WaitsForAFlush(boolean flushDoesTheWork) {
            this.flushDoesTheWork = flushDoesTheWork;
        }

        @Override
        public Next onRead(ByteBuffer in, OutputBuffer out) {
            if (!waiting && in.hasRemaining()) {
                in.get();
                waiting = true;
                FlushingThread.current()
                        .owe(
                                () -> {
                                    flushes.incrementAndGet();
                                    if (flushDoesTheWork) {
                                        work.complete(null);
                                    }
                                });
            }
            if (waiting && !work.isDone()) {
                return Next.AWAIT;
            }
            if (waiting) {
                waiting = false;
                out.reserve(1).put((byte) 'A');
            }
            return Next.READ_MORE;
        }

        @Override
        public CompletableFuture<?> awaiting() {
            futuresAsked.incrementAndGet();
            return work;
        }

        @Override
        public void onEndOfStream(int unconsumed) {}
    }

    @Test
    void aConnectionWaitingForItsTurnsFlushIsAnsweredAfterItWithNoFuture() throws Exception {
        WaitsForAFlush session = new WaitsForAFlush(true);
        assertThat(exchangeOneByte(session)).isEqualTo('A');
        assertThat(session.flushes.get()).as("the turn's end ran the owed flush").isEqualTo(1);
        assertThat(session.futuresAsked.get()).as("no future was needed").isZero();
    }

    @Test
    void aFlushThatLeavesTheWorkUndoneFallsBackToTheSessionsFuture() throws Exception {
        WaitsForAFlush session = new WaitsForAFlush(false);
        Thread finisher =
                new Thread(
                        () -> {
                            while (session.futuresAsked.get() == 0) {
                                Thread.onSpinWait();
                            }
                            session.work.complete(null); // another thread finishes the work
                        });
        finisher.setDaemon(true);
        finisher.start();
        assertThat(exchangeOneByte(session)).isEqualTo('A');
        assertThat(session.flushes.get()).isEqualTo(1);
        assertThat(session.futuresAsked.get()).as("waited on the future once").isEqualTo(1);
    }

    private static char exchangeOneByte(ByteSession session) throws Exception {
        EventLoopServer server =
                new EventLoopServer(
                        "turns",
                        new InetSocketAddress("127.0.0.1", 0),
                        1,
                        () -> session,
                        10,
                        Duration.ofSeconds(30));
        server.start();
        try (Socket socket =
                new Socket(
                        server.getLocalAddress().getAddress(),
                        server.getLocalAddress().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write('x');
            InputStream in = socket.getInputStream();
            return (char) in.read();
        } finally {
            server.close();
        }
    }
}
