package dbf0.base.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.RateLimitedLog;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Accept errors (EMFILE) back off instead of spinning; counted with a fake clock, no sleeping. */
class AcceptorTest {

    @Test
    void failuresBackOffFromOneMillisecondToOneSecondAndResetOnSuccess() {
        List<Long> waits = new ArrayList<>();
        List<Closeable> handedOff = new ArrayList<>();
        AtomicBoolean closing = new AtomicBoolean();
        AtomicInteger calls = new AtomicInteger();
        // 15 failures, one success, 3 failures, then the server closes.
        Acceptor.Source<Closeable> source =
                () -> {
                    int call = calls.incrementAndGet();
                    if (call == 16) {
                        return () -> {};
                    }
                    if (call == 20) {
                        closing.set(true);
                    }
                    throw new IOException("Too many open files");
                };
        Acceptor<Closeable> acceptor =
                new Acceptor<>(
                        "test",
                        source,
                        new AtomicInteger(),
                        10,
                        handedOff::add,
                        () -> {},
                        closing::get,
                        new RateLimitedLog(LoggerFactory.getLogger(AcceptorTest.class), 1),
                        waits::add);
        acceptor.run();
        assertThat(handedOff).hasSize(1);
        assertThat(waits)
                .containsExactly(
                        1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1000L, 1000L, 1000L, 1000L,
                        1000L, // 15 failures in a row: capped at a second
                        1L, 2L, 4L); // the success reset it
    }

    @Test
    void connectionsPastTheLimitAreClosedAndCounted() {
        AtomicInteger open = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        AtomicBoolean closing = new AtomicBoolean();
        List<Closeable> handedOff = new ArrayList<>();
        Acceptor<Closeable> acceptor =
                new Acceptor<>(
                        "test",
                        () -> {
                            if (calls.incrementAndGet() == 5) {
                                closing.set(true);
                            }
                            return closed::incrementAndGet;
                        },
                        open,
                        3,
                        handedOff::add,
                        refused::incrementAndGet,
                        closing::get,
                        new RateLimitedLog(LoggerFactory.getLogger(AcceptorTest.class), 1),
                        millis -> {});
        acceptor.run();
        assertThat(handedOff).hasSize(3);
        assertThat(open).hasValue(3);
        assertThat(refused).hasValue(2);
        assertThat(closed).hasValue(2);
    }
}
