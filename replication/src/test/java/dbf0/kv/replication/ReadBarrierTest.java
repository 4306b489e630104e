package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One ReadIndex at a time, and the next one never sent from the thread that answered the last. */
class ReadBarrierTest {

    @Test
    void aReadThatArrivesMeanwhileWaitsForTheNextReadIndexSentFromTheHandoffThread()
            throws Exception {
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        List<String> sentFrom = new ArrayList<>();
        ExecutorService handoff = Executors.newSingleThreadExecutor(r -> new Thread(r, "handoff"));
        try {
            ReadBarrier barrier =
                    new ReadBarrier(
                            () -> {
                                synchronized (sent) {
                                    CompletableFuture<Void> f = new CompletableFuture<>();
                                    sent.add(f);
                                    sentFrom.add(Thread.currentThread().getName());
                                    return f;
                                }
                            },
                            handoff);
            CompletableFuture<Void> first = barrier.await();
            CompletableFuture<Void> second = barrier.await();
            CompletableFuture<Void> third = barrier.await();
            synchronized (sent) {
                assertThat(sent).hasSize(1); // the later reads share the next one
            }
            // The engine answers on a thread of its own, as Ratis does under its locks.
            Thread engine = new Thread(() -> sent.get(0).complete(null), "engine");
            engine.start();
            engine.join();
            first.get(5, TimeUnit.SECONDS);
            assertThat(second).isSameAs(third).isNotDone();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                synchronized (sent) {
                    if (sent.size() == 2) {
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            synchronized (sent) {
                assertThat(sentFrom).containsExactly(Thread.currentThread().getName(), "handoff");
                sent.get(1).complete(null);
            }
            second.get(5, TimeUnit.SECONDS);
        } finally {
            handoff.shutdownNow();
        }
    }
}
