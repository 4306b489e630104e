package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalTesting.b;
import static dbf0.kv.storage.wal.WalTesting.open;
import static dbf0.kv.storage.wal.WalTesting.opts;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.storage.MapStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Group commit under always: writers share fsyncs, the commit wait, the bounded queue. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupCommitTest {

    @Test
    void concurrentWritersShareFsyncs() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        int threads = 16;
        int each = 200;
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                writers.add(
                        Thread.ofPlatform()
                                .start(
                                        () -> {
                                            try {
                                                start.await();
                                            } catch (InterruptedException e) {
                                                return;
                                            }
                                            for (int i = 0; i < each; i++) {
                                                store.put(b(id + "-" + i), b("v"));
                                            }
                                        }));
            }
            start.countDown();
            for (Thread w : writers) {
                w.join();
            }
            WalStats stats = store.stats();
            assertThat(stats.recordsWritten()).isEqualTo(threads * each);
            assertThat(stats.recordsForced()).isEqualTo(threads * each);
            // Each put waited for its own force, so without sharing there would be one force per
            // put.
            assertThat(stats.fsyncs()).isLessThan(threads * each);
            assertThat(stats.recordsPerFsync()).isGreaterThan(1.0);
            assertThat(store.size()).isEqualTo(threads * each);
        }
    }

    /**
     * Holds the first force until released, so that the writes behind it queue up and commit
     * together.
     */
    private static WalStore afterACommitOfTwo(StalledForce stalled, WalOptions options)
            throws Exception {
        WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options, stalled);
        var first = store.putAsync(b("first"), b("v"));
        assertThat(stalled.entered.await(10, TimeUnit.SECONDS)).isTrue();
        var a = store.putAsync(b("a"), b("v"));
        var c = store.putAsync(b("c"), b("v"));
        stalled.release.countDown();
        first.join();
        a.join();
        c.join();
        assertThat(store.stats().fsyncs()).as("first alone, then a and c together").isEqualTo(2);
        return store;
    }

    @Test
    @Timeout(60)
    void afterACommitOfTwoALoneWriteWaitsForASecondAndTheyShareOneFsync() throws Exception {
        WalOptions options =
                opts(FsyncPolicy.ALWAYS).withCommitWait(WalOptions.MAX_COMMIT_WAIT_MICROS);
        StalledForce stalled = new StalledForce(new SimulatedDirectory().mount());
        try (WalStore store = afterACommitOfTwo(stalled, options)) {
            var x = store.putAsync(b("x"), b("v"));
            Thread.sleep(100);
            assertThat(x)
                    .as("waiting, up to a second, for as many writes as the last commit had")
                    .isNotDone();
            var y = store.putAsync(b("y"), b("v"));
            x.join();
            y.join();
            assertThat(store.stats().fsyncs()).isEqualTo(3);
            assertThat(store.stats().recordsForced()).isEqualTo(5);
        }
    }

    @Test
    @Timeout(60)
    void withTheCommitWaitOffALoneWriteIsForcedAtOnce() throws Exception {
        WalOptions options = opts(FsyncPolicy.ALWAYS).withCommitWait(0);
        StalledForce stalled = new StalledForce(new SimulatedDirectory().mount());
        try (WalStore store = afterACommitOfTwo(stalled, options)) {
            // no partner comes: only an unconditional force ends this
            store.putAsync(b("x"), b("v")).join();
            assertThat(store.stats().fsyncs()).isEqualTo(3);
        }
    }

    @Test
    @Timeout(60)
    void aLoneWriterNeverWaits() throws Exception {
        // The last commit had one write, so the next one alone is as big as the last: no wait, even
        // with the longest wait allowed (a second): ten writes one after another take far less.
        WalOptions options =
                opts(FsyncPolicy.ALWAYS).withCommitWait(WalOptions.MAX_COMMIT_WAIT_MICROS);
        try (WalStore store = open(new SimulatedDirectory(), options)) {
            long started = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                store.put(b("k" + i), b("v"));
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(store.stats().fsyncs()).isEqualTo(10);
        }
    }

    @Test
    void aFullQueueBlocksTheSubmitterUntilTheWriterDrainsItAndLosesNothing() throws Exception {
        StalledForce stalled = new StalledForce(new SimulatedDirectory().mount());
        try (WalStore store =
                WalStore.open(
                        new MapStore(new ConcurrentHashMap<>()),
                        opts(FsyncPolicy.ALWAYS),
                        stalled)) {
            // The writer takes the first write and stalls in its fsync, with an empty queue behind
            // it.
            List<CompletableFuture<Boolean>> writes = new ArrayList<>();
            writes.add(store.putAsync(b("first"), b("v")));
            assertThat(stalled.entered.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < WalStore.QUEUE_CAPACITY; i++) {
                writes.add(
                        store.putAsync(
                                b("k" + i), b("v" + i))); // fills the queue: none of these blocks
            }
            AtomicBoolean returned = new AtomicBoolean();
            AtomicReference<CompletableFuture<Boolean>> last = new AtomicReference<>();
            Thread submitter =
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        last.set(store.putAsync(b("one too many"), b("v")));
                                        returned.set(true);
                                    });
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> submitter.getState() == Thread.State.WAITING);
            assertThat(returned).as("the submitter past the bound waits for room").isFalse();
            assertThat(writes).noneMatch(CompletableFuture::isDone);

            stalled.release.countDown();
            submitter.join(10_000);
            assertThat(returned).isTrue();
            assertThat(last.get().get(10, TimeUnit.SECONDS)).isTrue();
            for (var write : writes) {
                assertThat(write.get(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(store.size()).isEqualTo(WalStore.QUEUE_CAPACITY + 2);
            assertThat(store.stats().recordsWritten()).isEqualTo(WalStore.QUEUE_CAPACITY + 2L);
        }
    }
}
