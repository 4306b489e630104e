package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalTesting.b;
import static dbf0.kv.storage.wal.WalTesting.contents;
import static dbf0.kv.storage.wal.WalTesting.differences;
import static dbf0.kv.storage.wal.WalTesting.open;
import static dbf0.kv.storage.wal.WalTesting.opts;
import static dbf0.kv.storage.wal.WalTesting.runWriters;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.wal.WalTesting.SlowApply;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Combining under interval and never: pending records, one write call per flush. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CombiningTest {

    /**
     * A store under interval or never whose safety net waits a minute: only an explicit flush
     * writes.
     */
    private static WalStore withoutSafetyNet(SimulatedDirectory disk, FsyncPolicy policy)
            throws IOException {
        return WalStore.open(
                new MapStore(new ConcurrentHashMap<>()),
                opts(policy),
                disk.mount(),
                WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(1)));
    }

    @Test
    void underIntervalAndNeverWritesWaitForAFlushWhichWritesThemAllWithOneWriteCall()
            throws Exception {
        for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
            SimulatedDirectory disk = new SimulatedDirectory();
            WalStore store = withoutSafetyNet(disk, policy);
            store.put(b("old"), b("0"));
            byte[] logBefore = disk.bytes(WalStore.LOG_NAME);
            long writesBefore = disk.writes();

            List<String> completed = Collections.synchronizedList(new ArrayList<>());
            var putNew = store.putAsync(b("new"), b("1"));
            var putOld = store.putAsync(b("old"), b("2"));
            var deleteNew = store.deleteAsync(b("new"));
            var deleteNone = store.deleteAsync(b("none"));
            putNew.thenRun(() -> completed.add("put new"));
            putOld.thenRun(() -> completed.add("put old"));
            deleteNew.thenRun(() -> completed.add("delete new"));
            deleteNone.thenRun(() -> completed.add("delete none"));

            assertThat(List.of(putNew, putOld, deleteNew, deleteNone))
                    .as(policy.name())
                    .noneMatch(CompletableFuture::isDone);
            assertThat(store.stats().recordsWritten()).as("only the first").isEqualTo(1);
            assertThat(store.get(b("new"))).as("not applied before it is written").isNull();
            assertThat(store.get(b("old"))).isEqualTo(b("0"));
            assertThat(disk.bytes(WalStore.LOG_NAME))
                    .as("nothing written yet")
                    .isEqualTo(logBefore);
            assertThat(disk.writes()).isEqualTo(writesBefore);

            store.flush();
            assertThat(disk.writes() - writesBefore).as("one write call for the four").isEqualTo(1);
            assertThat(completed)
                    .as("completed in order, before flush returned")
                    .containsExactly("put new", "put old", "delete new", "delete none");
            assertThat(putNew).isCompletedWithValue(true);
            assertThat(putOld).isCompletedWithValue(true);
            assertThat(deleteNew)
                    .as("applied in order: the put came first")
                    .isCompletedWithValue(true);
            assertThat(deleteNone).isCompletedWithValue(false);
            assertThat(store.get(b("old"))).isEqualTo(b("2"));
            assertThat(store.get(b("new"))).isNull();
            assertThat(disk.bytes(WalStore.LOG_NAME).length - logBefore.length)
                    .isEqualTo(
                            WalRecord.encodedSize(new WalRecord.Put(b("new"), b("1")))
                                    + WalRecord.encodedSize(new WalRecord.Put(b("old"), b("2")))
                                    + WalRecord.encodedSize(new WalRecord.Delete(b("new")))
                                    + WalRecord.encodedSize(new WalRecord.Delete(b("none"))));
            assertThat(store.stats().recordsWritten()).isEqualTo(5);
            store.flush(); // nothing pending: no write call
            assertThat(disk.writes() - writesBefore).isEqualTo(1);

            var synced = store.putAsync(b("synced"), b("s"));
            // writes what was accepted before it, then forces
            store.syncAsync().get(10, TimeUnit.SECONDS);
            assertThat(synced).as("written by the sync").isCompletedWithValue(true);
            var last = store.putAsync(b("last"), b("x"));
            store.close(); // writes what was accepted before it
            assertThat(last).as("written by close").isCompletedWithValue(true);
            assertThat(store.putAsync(b("late"), b("x")))
                    .as("refused after close")
                    .isCompletedExceptionally();
            assertThatThrownBy(() -> store.put(b("late"), b("x")))
                    .isInstanceOf(StorageFailureException.class)
                    .hasMessageContaining("closed");
            disk.powerCut(null); // the sync and close forced everything
            try (WalStore reopened = open(disk, opts(policy))) {
                assertThat(contents(reopened))
                        .as(policy.name())
                        .containsOnly(
                                Map.entry(b("old"), b("2")),
                                Map.entry(b("synced"), b("s")),
                                Map.entry(b("last"), b("x")));
                assertThat(reopened.recovery().records()).isEqualTo(7);
            }
        }
    }

    @Test
    void underAlwaysAnEventLoopsWritesWaitForItsFlushWhichWritesAndForcesThemOnce()
            throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalStore store = withoutSafetyNet(disk, FsyncPolicy.ALWAYS);
        List<CompletableFuture<Boolean>> writes = new ArrayList<>();
        long[] before = new long[2];
        long[] atFlush = new long[3];
        Thread loop =
                new dbf0.common.FlushingThread(
                        () -> {
                            before[0] = disk.writes();
                            before[1] = disk.forces();
                            writes.add(store.putAsync(b("a"), b("1")));
                            writes.add(store.putAsync(b("b"), b("2")));
                            writes.add(store.deleteAsync(b("a")));
                            atFlush[0] = writes.stream().filter(CompletableFuture::isDone).count();
                            atFlush[1] = store.get(b("b")) == null ? 0 : 1;
                            store.flush(); // on a loop under always: owed, not run
                            atFlush[2] = disk.writes() - before[0];
                            dbf0.common.FlushingThread.current().flushOwed(); // the turn's end
                        },
                        "loop");
        loop.start();
        loop.join(10_000);
        assertThat(atFlush)
                .as("nothing done, applied or written before the turn's end")
                .containsExactly(0, 0, 0);
        assertThat(writes).allMatch(w -> w.isDone() && !w.isCompletedExceptionally());
        assertThat(disk.writes() - before[0]).as("one write call for the three").isEqualTo(1);
        assertThat(disk.forces() - before[1]).as("one fsync for the three").isEqualTo(1);
        assertThat(store.stats().recordsForced()).isEqualTo(3);
        disk.powerCut(null); // forced before acknowledged: a power cut keeps all three
        store.close();
        try (WalStore reopened = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(contents(reopened)).containsOnly(Map.entry(b("b"), b("2")));
        }
    }

    /**
     * A flush by a thread that is not a loop waits for records another flush has already taken: an
     * event loop's flush stalls in its fsync, holding a put it has taken but not applied, and a
     * flush from another thread (as MIGRATE runs) must not return before that put is in the store.
     */
    @Test
    @Timeout(60)
    void aFlushFromOutsideTheLoopsWaitsForAFlushInProgress() throws Exception {
        StalledForce stalled = new StalledForce(new SimulatedDirectory().mount());
        try (WalStore store =
                WalStore.open(
                        new MapStore(new ConcurrentHashMap<>()),
                        opts(FsyncPolicy.ALWAYS),
                        stalled,
                        WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(1)))) {
            Thread loop =
                    new dbf0.common.FlushingThread(
                            () -> {
                                store.putAsync(b("k"), b("1"));
                                store.flush(); // owed to the turn's end
                                dbf0.common.FlushingThread.current().flushOwed(); // stalls
                            },
                            "loop");
            loop.start();
            stalled.entered.await();
            Thread other = new Thread(store::flush, "migrate");
            other.start();
            while (other.isAlive() && other.getState() == Thread.State.RUNNABLE) {
                Thread.onSpinWait(); // until it returns or waits for the lock
            }
            boolean returnedEarly = !other.isAlive() && store.get(b("k")) == null;
            stalled.release.countDown();
            other.join();
            assertThat(returnedEarly)
                    .as("the flush returned while the put it had to wait for was not applied")
                    .isFalse();
            assertThat(store.get(b("k"))).isEqualTo(b("1"));
            loop.join();
        }
    }

    @Test
    void underIntervalAnEventLoopsFlushWritesItsOwnRecordsAtOnceAndLeavesAnotherLoops()
            throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = withoutSafetyNet(disk, FsyncPolicy.INTERVAL)) {
            List<CompletableFuture<Boolean>> first = new ArrayList<>();
            List<CompletableFuture<Boolean>> second = new ArrayList<>();
            boolean[] seen = new boolean[3];
            Thread a =
                    new dbf0.common.FlushingThread(
                            () -> first.add(store.putAsync(b("a"), b("1"))), "loop-a");
            a.start();
            a.join(10_000);
            Thread b =
                    new dbf0.common.FlushingThread(
                            () -> {
                                second.add(store.putAsync(b("b"), b("2")));
                                store.flush(); // a write call, not owed to the turn's end
                                seen[0] = dbf0.common.FlushingThread.current().owesFlushes();
                                seen[1] = second.get(0).isDone();
                                seen[2] = first.get(0).isDone();
                            },
                            "loop-b");
            b.start();
            b.join(10_000);
            assertThat(seen)
                    .as("nothing owed; its own write done; the other loop's left for its flush")
                    .containsExactly(false, true, false);
            assertThat(store.get(b("a"))).as("unwritten, so unseen").isNull();
            store.flush(); // another thread's flush takes every lane
            assertThat(first.get(0)).isCompletedWithValue(true);
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
        }
    }

    @Test
    void underIntervalAndNeverAFailedWriteFailsEveryRecordOfItsFlushAndTheNextFlushIsLogged()
            throws Exception {
        for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
            SimulatedDirectory disk = new SimulatedDirectory();
            try (WalStore store = withoutSafetyNet(disk, policy)) {
                store.put(b("a"), b("1"));
                disk.failNext(SimulatedDirectory.Op.WRITE, 1);
                var putB = store.putAsync(b("b"), b("2"));
                var deleteA = store.deleteAsync(b("a"));
                var putC = store.putAsync(b("c"), b("3"));
                store.flush();
                for (var failed : List.of(putB, deleteA, putC)) {
                    assertThat(failed).as(policy.name()).isCompletedExceptionally();
                    assertThatThrownBy(failed::join)
                            .hasCauseInstanceOf(StorageFailureException.class)
                            .hasMessageContaining("not acknowledged");
                }
                assertThat(store.get(b("b"))).as("a failed write is not applied").isNull();
                assertThat(store.get(b("a"))).isEqualTo(b("1"));
                assertThat(store.get(b("c"))).isNull();
                var d = store.putAsync(b("d"), b("4"));
                store.flush();
                assertThat(d).isCompletedWithValue(true);
                assertThat(store.stats().failure()).isNull();
                assertThat(store.stats().recordsWritten()).isEqualTo(2);
            }
            try (WalStore store = open(disk, opts(policy))) {
                assertThat(contents(store)).as(policy.name()).containsOnlyKeys(b("a"), b("d"));
                assertThat(store.recovery().droppedBytes()).isZero();
            }
        }
    }

    @Test
    void aWriteNobodyFlushesIsWrittenByTheSafetyNet() throws Exception {
        for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
            SimulatedDirectory disk = new SimulatedDirectory();
            try (WalStore store = open(disk, opts(policy))) {
                Thread.sleep(50); // idle first: the writer is in its idle wait when the write comes
                var put = store.putAsync(b("k"), b("v"));
                assertThat(put.get(10, TimeUnit.SECONDS)).as(policy.name()).isTrue();
                assertThat(store.get(b("k"))).isEqualTo(b("v"));
                assertThat(disk.bytes(WalStore.LOG_NAME))
                        .isEqualTo(WalRecord.encode(new WalRecord.Put(b("k"), b("v"))));
            }
        }
    }

    @Test
    void theSubmitterThatReachesThePendingLimitFlushes() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = withoutSafetyNet(disk, FsyncPolicy.NEVER)) {
            List<CompletableFuture<Boolean>> writes = new ArrayList<>();
            for (int i = 0; i < Combiner.PENDING_LIMIT - 1; i++) {
                writes.add(store.putAsync(b("k" + i), b("v")));
            }
            assertThat(disk.writes()).as("nothing written yet").isZero();
            assertThat(store.size()).as("nothing applied yet").isZero();
            assertThat(writes).noneMatch(CompletableFuture::isDone);
            writes.add(store.putAsync(b("last"), b("v")));
            assertThat(writes).allMatch(w -> w.isDone() && !w.isCompletedExceptionally());
            assertThat(store.size()).isEqualTo(Combiner.PENDING_LIMIT);
            assertThat(disk.writes()).as("one write call").isEqualTo(1);
        }
    }

    /**
     * Threads writing the same keys at once: the live store must equal what a replay of the log
     * gives.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void underIntervalConcurrentWritersOfTheSameKeysLeaveTheStoreEqualToItsReplay(int group)
            throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        Map<ByteArrayWrapper, ByteArrayWrapper> live;
        // A slow apply (as a big map's resize is) widens any gap between a record's append and its
        // apply.
        WalOptions options = opts(FsyncPolicy.INTERVAL);
        try (WalStore store = WalStore.open(new SlowApply(), options, disk.mount())) {
            // all of them until one deadline, so that every key's last writes race each other too;
            // on a loaded machine, past it until the log holds enough records to race (within 20 s)
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            long cap = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            runWriters(
                    store,
                    8,
                    0,
                    4,
                    group,
                    () ->
                            System.nanoTime() < cap
                                    && (System.nanoTime() < deadline
                                            || store.stats().recordsWritten() <= 100));
            live = contents(store);
            assertThat(store.stats().recordsWritten()).isGreaterThan(100);
        }
        assertThat(live).isNotEmpty();
        try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
            assertThat(differences(live, contents(store))).as("live vs replayed").isEmpty();
        }
    }

    @Test
    void anInterruptedCallerDoesNotCloseTheRealLogForEveryone(@TempDir Path dir)
            throws IOException {
        // A FileChannel closes itself when a thread with its interrupt flag set calls it; under
        // never the caller's own thread makes that call, so the store must set the flag aside
        // around it.
        WalOptions options =
                WalOptions.defaults(dir).withFsync(FsyncPolicy.NEVER).withRewrite(0, 0);
        // no safety net: the interrupted caller's flush is the one that writes
        WalLimits limits = WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(1));
        try (WalStore store =
                WalStore.open(
                        new MapStore(new ConcurrentHashMap<>()),
                        options,
                        new FileChannelDirectory(dir),
                        limits)) {
            Thread.currentThread().interrupt();
            try {
                var put = store.putAsync(b("a"), b("1"));
                store.flush();
                assertThat(put).isCompletedWithValue(true);
                assertThat(Thread.currentThread().isInterrupted())
                        .as("the flag is given back")
                        .isTrue();
            } finally {
                Thread.interrupted();
            }
            store.put(b("b"), b("2"));
            assertThat(store.stats().failure()).isNull();
        }
        try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
            assertThat(contents(store)).containsOnlyKeys(b("a"), b("b"));
        }
    }
}
