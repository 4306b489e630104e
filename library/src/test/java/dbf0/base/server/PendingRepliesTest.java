package dbf0.base.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.io.OutputBuffer;
import dbf0.common.FlushingThread;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The order and the bound of replies that wait for futures. */
class PendingRepliesTest {

    /** Runs {@code body} on an event loop's kind of thread, as a session there would be run. */
    private static void onALoop(Runnable body) throws InterruptedException {
        FlushingThread loop = new FlushingThread(body, "loop");
        loop.start();
        loop.join(10_000);
    }

    private static String text(OutputBuffer out) {
        return new String(out.toByteArray(), StandardCharsets.US_ASCII);
    }

    private static PendingReplies.Answer<String> echo() {
        return (out, result, failure) ->
                out.put(
                        (failure != null ? "E:" + failure.getMessage() : result)
                                .getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void repliesGoOutInOrderOnlyAsFarAsTheFirstUnfinishedOne() {
        PendingReplies pending = new PendingReplies(() -> {});
        OutputBuffer out = new OutputBuffer(16);
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        pending.add(first, 1, echo());
        pending.add(second, 2, echo());
        pending.reply(
                out, o -> o.put("now".getBytes(StandardCharsets.US_ASCII))); // keeps its place
        assertThat(pending.inFlight()).isEqualTo(3);

        second.complete("b"); // done, but behind one that is not
        assertThat(pending.writeCompleted(out)).isFalse();
        assertThat(text(out)).isEmpty();
        CompletableFuture<Void> all = pending.allDone();
        assertThat(all).isNotDone();

        first.completeExceptionally(new IllegalStateException("disk"));
        assertThat(all)
                .as("a failure ends the wait normally: it is an answer")
                .isCompletedWithValue(null);
        assertThat(pending.writeCompleted(out)).isTrue();
        assertThat(text(out)).isEqualTo("E:diskbnow");
        assertThat(pending.inFlight()).isZero();
        assertThat(pending.isEmpty()).isTrue();

        pending.reply(
                out,
                o -> o.put("!".getBytes(StandardCharsets.US_ASCII))); // nothing waits: written at
        // once
        assertThat(text(out)).isEqualTo("E:diskbnow!");
    }

    @Test
    void beforeWaitingRunsBeforeAnyWaitSoThatWritesItCompletesNeedNoWait() {
        CompletableFuture<String> write = new CompletableFuture<>();
        int[] flushes = {0};
        PendingReplies pending =
                new PendingReplies(
                        () -> {
                            flushes[0]++;
                            write.complete("ok"); // a store whose flush does the writes at once
                        });
        OutputBuffer out = new OutputBuffer(16);
        assertThat(pending.endOfInput(out))
                .as("nothing waits: no flush")
                .isEqualTo(ByteSession.Next.READ_MORE);
        assertThat(flushes[0]).isZero();

        pending.add(write, 1, echo());
        assertThat(pending.endOfInput(out))
                .as("flushed, then found done")
                .isEqualTo(ByteSession.Next.READ_MORE);
        assertThat(flushes[0]).isEqualTo(1);
        assertThat(text(out)).isEqualTo("ok");

        CompletableFuture<String> held = new CompletableFuture<>();
        pending.add(held, 1, echo());
        assertThat(pending.endOfInput(out)).isEqualTo(ByteSession.Next.AWAIT);
        assertThat(flushes[0]).isEqualTo(2);
        assertThat(pending.allDone()).isNotDone();
        assertThat(flushes[0]).as("the wait itself flushes too").isEqualTo(3);
    }

    /**
     * A lone write on a loop waits for the turn's end, whether the store's flush is dear and owes
     * itself there (a log under always) or cheap and would write at once (interval, never).
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void onAnEventLoopALoneWriteWaitsForTheEndOfTheTurn(boolean flushOwesItself) throws Exception {
        CompletableFuture<String> write = new CompletableFuture<>();
        int[] flushes = {0};
        Runnable flush =
                () -> {
                    if (flushes[0]++ == 0 && flushOwesItself) {
                        FlushingThread.current().owe(() -> write.complete("ok"));
                    } else if (!flushOwesItself) {
                        write.complete("ok");
                    }
                };
        PendingReplies pending = new PendingReplies(flush);
        OutputBuffer out = new OutputBuffer(16);
        Object[] seen = new Object[4];
        onALoop(
                () -> {
                    pending.add(write, 1, echo());
                    seen[0] = pending.endOfInput(out);
                    seen[1] = write.isDone();
                    seen[2] = FlushingThread.current().owesFlushes();
                    FlushingThread.current().flushOwed(); // the end of the loop's turn
                    seen[3] = pending.endOfInput(out);
                });
        assertThat(seen)
                .as("waits, not written yet, owes the flush; answered once the turn flushed")
                .containsExactly(ByteSession.Next.AWAIT, false, true, ByteSession.Next.READ_MORE);
        assertThat(text(out)).isEqualTo("ok");
    }

    @Test
    void onAnEventLoopAReadThatBroughtSeveralWritesFlushesAtOnce() throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        PendingReplies pending =
                new PendingReplies(
                        () -> {
                            first.complete("a");
                            second.complete("b");
                        });
        OutputBuffer out = new OutputBuffer(16);
        Object[] seen = new Object[2];
        onALoop(
                () -> {
                    pending.add(first, 1, echo());
                    pending.add(second, 1, echo());
                    seen[0] = pending.endOfInput(out); // a pipelining client's read
                    seen[1] = FlushingThread.current().owesFlushes();
                });
        assertThat(seen)
                .as("flushed in the same pass and answered: the replies are not held back")
                .containsExactly(ByteSession.Next.READ_MORE, false);
        assertThat(text(out)).isEqualTo("ab");
    }

    @Test
    void onAnEventLoopAReadBehindWritesRunsACheapFlushAtOnce() throws Exception {
        CompletableFuture<String> write = new CompletableFuture<>();
        PendingReplies pending = new PendingReplies(() -> write.complete("ok"));
        OutputBuffer out = new OutputBuffer(16);
        Object[] seen = new Object[2];
        onALoop(
                () -> {
                    pending.add(write, 1, echo());
                    seen[0] = pending.writeCompleted(out); // a GET behind its own SET
                    seen[1] = FlushingThread.current().owesFlushes();
                });
        assertThat(seen)
                .as("the flush ran in the same pass: answered, nothing owed")
                .containsExactly(true, false);
        assertThat(text(out)).isEqualTo("ok");
    }

    @Test
    void fullAtTheBound() {
        PendingReplies pending = new PendingReplies(() -> {});
        for (int i = 0; i < PendingReplies.MAX_IN_FLIGHT - 1; i++) {
            pending.add(new CompletableFuture<String>(), 1, echo());
        }
        assertThat(pending.full()).isFalse();
        pending.add(new CompletableFuture<String>(), 1, echo());
        assertThat(pending.full()).isTrue();
    }
}
