package dbf0.kv.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * What a read on the leader waits for, so that it is linearizable: a ReadIndex (Raft paper, section
 * 6.4) that the leader asks for after the read arrived. Ratis answers it once a heartbeat round has
 * shown that a majority still follows this leader (no newer leader can have committed anything this
 * one has not applied) and the leader has applied everything committed before the request; under a
 * lease it skips the round while its lease holds.
 *
 * <p>One ReadIndex serves every read that arrived before it was sent, so at most one is in flight:
 * a read that arrives while one is in flight waits for the next, which is sent the moment the
 * current one is answered. A busy leader thus pays one heartbeat round per round trip, not per
 * read.
 *
 * <p>The next ReadIndex is sent from {@code handoff}'s thread, never from the one that answered the
 * last: Ratis answers on its own threads while holding its own locks, and a request submitted from
 * there waited for a thread that waited for those locks (a leader deadlocked this way within
 * seconds under four clients, every read and write on it hanging for good).
 */
final class ReadBarrier {

    private final Supplier<CompletableFuture<Void>> send;
    private final Executor handoff;
    private CompletableFuture<Void> inFlight;
    private CompletableFuture<Void> next;

    /**
     * @param send asks the engine for one ReadIndex; completes once reads may be served
     * @param handoff runs what follows an answer, off the engine's thread
     */
    ReadBarrier(Supplier<CompletableFuture<Void>> send, Executor handoff) {
        this.send = send;
        this.handoff = handoff;
    }

    /** Completes once a read that arrived now may be served from the leader's store. */
    synchronized CompletableFuture<Void> await() {
        if (inFlight == null) {
            return start();
        }
        if (next == null) {
            next = new CompletableFuture<>();
        }
        return next;
    }

    private CompletableFuture<Void> start() {
        CompletableFuture<Void> sent = send.get();
        inFlight = sent;
        sent.whenCompleteAsync((ok, failure) -> answered(), handoff);
        return sent;
    }

    private void answered() {
        CompletableFuture<Void> waiting;
        CompletableFuture<Void> sent;
        synchronized (this) {
            inFlight = null;
            waiting = next;
            next = null;
            if (waiting == null) {
                return;
            }
            sent = start();
        }
        sent.whenComplete(
                (ok, failure) -> {
                    if (failure != null) {
                        waiting.completeExceptionally(failure);
                    } else {
                        waiting.complete(null);
                    }
                });
    }
}
