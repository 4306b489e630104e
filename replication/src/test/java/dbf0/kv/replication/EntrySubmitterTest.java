package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.FlushingThread;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.StoreRefusedException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shard's submitter with a log that the test holds: a parked log stands for Ratis appending an
 * entry to a slow disk. A caller that blocked would hang a test (the timeout turns that into a
 * failure); none of the assertions is about time.
 */
@Timeout(30)
class EntrySubmitterTest {

    /** A log that records each entry and parks in its first append until let go. */
    private static final class ParkedLog implements EntrySubmitter.Log {
        final List<List<WriteBatch.Op>> entries =
                java.util.Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch inFirstAppend = new CountDownLatch(1);
        final CountDownLatch letGo = new CountDownLatch(1);

        @Override
        public CompletableFuture<RaftReplication.Written> append(List<WriteBatch.Op> ops) {
            entries.add(List.copyOf(ops));
            if (entries.size() == 1) {
                inFirstAppend.countDown();
                try {
                    letGo.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CompletableFuture.failedFuture(e);
                }
            }
            byte[] found = new byte[ops.size()];
            java.util.Arrays.fill(found, StoreStateMachine.FOUND);
            return CompletableFuture.completedFuture(
                    new RaftReplication.Written(found, entries.size()));
        }
    }

    private final List<EntrySubmitter> opened = new ArrayList<>();

    private EntrySubmitter submitter(EntrySubmitter.Log log, int entryWrites, long queueBytes) {
        EntrySubmitter s =
                new EntrySubmitter("test-submitter", log, 1 << 20, entryWrites, queueBytes);
        opened.add(s);
        return s;
    }

    @AfterEach
    void close() {
        opened.forEach(EntrySubmitter::close);
    }

    private static WriteBatch.Op put(int i) {
        return WriteBatch.Op.put(bytes("k" + i), bytes("v" + i));
    }

    private static ByteArrayWrapper bytes(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void callersQueueAndReturnWhileTheLogIsParked() throws Exception {
        ParkedLog log = new ParkedLog();
        EntrySubmitter s = submitter(log, 4096, EntrySubmitter.QUEUE_BYTES);
        CompletableFuture<Boolean> first = s.submit(put(0));
        s.release();
        log.inFirstAppend.await(); // the submitter is stuck in the log now
        List<CompletableFuture<Boolean>> later = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            later.add(s.submit(put(i))); // returns although the log does not move
            s.release();
        }
        assertThat(first).isNotDone();
        assertThat(later).noneMatch(CompletableFuture::isDone);
        log.letGo.countDown();
        CompletableFuture.allOf(later.toArray(CompletableFuture[]::new)).join();
        assertThat(first.join()).isTrue();
    }

    @Test
    void whatGathersMeanwhileGoesAsOneEntryInQueueOrderWithinTheBounds() throws Exception {
        ParkedLog log = new ParkedLog();
        EntrySubmitter s = submitter(log, 40, EntrySubmitter.QUEUE_BYTES);
        s.submit(put(0));
        s.release();
        log.inFirstAppend.await();
        List<CompletableFuture<Boolean>> futures = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            futures.add(s.submit(put(i)));
        }
        s.release();
        log.letGo.countDown();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
        // entry 1 held write 0; then 100 writes in entries of at most 40, in the order queued
        assertThat(log.entries).extracting(List::size).containsExactly(1, 40, 40, 20);
        List<WriteBatch.Op> all = log.entries.stream().flatMap(List::stream).toList();
        for (int i = 0; i <= 100; i++) {
            assertThat(all.get(i)).isEqualTo(put(i));
        }
        assertThat(s.lastWriteIndex()).isEqualTo(4);
    }

    @Test
    void writesWaitForARelease() throws Exception {
        ParkedLog log = new ParkedLog();
        log.letGo.countDown();
        EntrySubmitter s = submitter(log, 4096, EntrySubmitter.QUEUE_BYTES);
        CompletableFuture<Boolean> a = s.submit(put(1));
        CompletableFuture<Boolean> b = s.submit(put(2));
        assertThat(log.entries).isEmpty(); // nothing released: the submitter waits
        s.release();
        assertThat(a.join()).isTrue();
        assertThat(b.join()).isTrue();
        assertThat(log.entries).containsExactly(List.of(put(1), put(2)));
    }

    @Test
    void aDeleteSaysWhetherItFoundItsKey() {
        EntrySubmitter s =
                submitter(
                        ops ->
                                CompletableFuture.completedFuture(
                                        new RaftReplication.Written(new byte[] {0, 1}, 7)),
                        4096,
                        EntrySubmitter.QUEUE_BYTES);
        CompletableFuture<Boolean> missing = s.submit(WriteBatch.Op.delete(bytes("a")));
        CompletableFuture<Boolean> found = s.submit(WriteBatch.Op.delete(bytes("b")));
        s.release();
        assertThat(missing.join()).isFalse();
        assertThat(found.join()).isTrue();
        assertThat(s.lastWriteIndex()).isEqualTo(7);
    }

    @Test
    void aRefusedEntryFailsItsWritesAndTheNextEntryGoesOn() {
        AtomicReference<Integer> calls = new AtomicReference<>(0);
        EntrySubmitter s =
                submitter(
                        ops -> {
                            calls.set(calls.get() + 1);
                            return calls.get() == 1
                                    ? CompletableFuture.failedFuture(
                                            new StoreRefusedException("READONLY", "not the leader"))
                                    : CompletableFuture.completedFuture(
                                            new RaftReplication.Written(new byte[ops.size()], 2));
                        },
                        4096,
                        EntrySubmitter.QUEUE_BYTES);
        CompletableFuture<Boolean> refused = s.submit(put(1));
        s.release();
        assertThat(refused).failsWithin(Duration.ofSeconds(10));
        assertThat(PendingReplies.failureOf(refused)).isInstanceOf(StoreRefusedException.class);
        CompletableFuture<Boolean> next = s.submit(put(2));
        s.release();
        assertThat(next.join()).isTrue();
    }

    @Test
    void aBugInTheSubmitterFailsEveryWriteItHoldsAndEveryLaterOneLoudly() throws Exception {
        CountDownLatch inAppend = new CountDownLatch(1);
        CountDownLatch blowUp = new CountDownLatch(1);
        EntrySubmitter s =
                submitter(
                        ops -> {
                            inAppend.countDown();
                            try {
                                blowUp.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            throw new IllegalStateException("a bug in encoding");
                        },
                        4096,
                        EntrySubmitter.QUEUE_BYTES);
        CompletableFuture<Boolean> inFlight = s.submit(put(1));
        s.release();
        inAppend.await();
        CompletableFuture<Boolean> queued = s.submit(put(2));
        blowUp.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !s.running());
        for (CompletableFuture<Boolean> f : List.of(inFlight, queued, s.submit(put(3)))) {
            assertThat(f).isCompletedExceptionally();
            Throwable why = PendingReplies.failureOf(f);
            assertThat(why).isInstanceOf(StorageFailureException.class);
            assertThat(why.getMessage()).contains("test-submitter stopped", "a bug in encoding");
        }
    }

    @Test
    void aFullQueueRefusesAnEventLoopAtOnceAndMakesAnotherThreadWait() throws Exception {
        ParkedLog log = new ParkedLog();
        long oneWrite = EntrySubmitter.memory(put(0));
        EntrySubmitter s = submitter(log, 4096, 3 * oneWrite);
        s.submit(put(0));
        s.release();
        log.inFirstAppend.await();
        s.submit(put(1));
        s.submit(put(2));
        s.submit(put(3)); // the queue is full now

        AtomicReference<CompletableFuture<Boolean>> fromLoop = new AtomicReference<>();
        FlushingThread loop = new FlushingThread(() -> fromLoop.set(s.submit(put(4))), "loop");
        loop.start();
        loop.join();
        assertThat(fromLoop.get()).isCompletedExceptionally();
        Throwable refusal = PendingReplies.failureOf(fromLoop.get());
        assertThat(refusal).isInstanceOf(StoreRefusedException.class);
        assertThat(((StoreRefusedException) refusal).code()).isEqualTo("TRYAGAIN");

        AtomicReference<CompletableFuture<Boolean>> fromWorker = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(() -> fromWorker.set(s.submit(put(5))));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> worker.getState() == Thread.State.WAITING);
        assertThat(fromWorker.get()).isNull(); // waiting for room
        log.letGo.countDown(); // the log moves, the queue drains, the worker's write goes in
        worker.join();
        s.release();
        assertThat(fromWorker.get().join()).isTrue();
        assertThat(log.entries.stream().flatMap(List::stream)).doesNotContain(put(4));
    }

    @Test
    void closingRefusesWhatIsQueuedAndEveryLaterWrite() throws Exception {
        ParkedLog log = new ParkedLog();
        EntrySubmitter s = submitter(log, 4096, EntrySubmitter.QUEUE_BYTES);
        s.submit(put(0));
        s.release();
        log.inFirstAppend.await();
        CompletableFuture<Boolean> queued = s.submit(put(1));
        s.close();
        assertThat(s.running()).isFalse();
        for (CompletableFuture<Boolean> f : List.of(queued, s.submit(put(2)))) {
            assertThat(PendingReplies.failureOf(f)).isInstanceOf(StoreRefusedException.class);
        }
    }
}
