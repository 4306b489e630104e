package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalTesting.b;
import static dbf0.kv.storage.wal.WalTesting.contents;
import static dbf0.kv.storage.wal.WalTesting.open;
import static dbf0.kv.storage.wal.WalTesting.opts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The store as a whole: a restart keeps the data, the policies, failures and close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WalStoreTest {

    @Test
    void putsDeletesAndClearsSurviveARestart(@TempDir Path dir) throws IOException {
        WalOptions options = WalOptions.defaults(dir);
        try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
            store.put(b("a"), b("3"));
            assertThat(store.delete(b("b"))).isTrue();
            assertThat(store.delete(b("nope"))).isFalse();
            store.clear();
            store.put(b("c"), b("4"));
            store.put(b("d"), b("5"));
            store.delete(b("d"));
        }
        try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
            assertThat(contents(store)).containsExactly(Map.entry(b("c"), b("4")));
            assertThat(store.recovery().records()).isEqualTo(9);
            assertThat(store.recovery().keys()).isEqualTo(1);
            assertThat(store.recovery().droppedBytes()).isZero();
            assertThat(store.recovery().summary()).contains("9 records", "1 key,");
        }
    }

    /**
     * Under always, a write from a thread that is not an event loop goes to the writer thread; a
     * cluster node's MIGRATE, about to read the keys it moves, must find such a write applied.
     */
    @Test
    void awaitSubmittedReturnsOnceTheWriterThreadsWritesAreApplied(@TempDir Path dir)
            throws IOException {
        try (WalStore store =
                WalStore.open(new MapStore(new ConcurrentHashMap<>()), WalOptions.defaults(dir))) {
            for (int i = 0; i < 20; i++) {
                CompletableFuture<Boolean> put = store.putAsync(b("k" + i), b("v" + i));
                store.awaitSubmitted();
                assertThat(store.get(b("k" + i))).as("write %d applied", i).isEqualTo(b("v" + i));
                assertThat(put).isDone();
            }
        }
    }

    @Test
    void aSecondServerOnTheSameDirectoryIsRefused(@TempDir Path dir) throws IOException {
        WalOptions options = WalOptions.defaults(dir);
        try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
            store.put(b("a"), b("1"));
            assertThatThrownBy(
                            () -> WalStore.open(new MapStore(new ConcurrentHashMap<>()), options))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("in use");
        }
    }

    @Test
    void alwaysAcknowledgesOnlyForcedRecords() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("k"), b("v"));
            disk.powerCut(null); // keeps only what was forced, with no torn tail
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(store.get(b("k"))).isEqualTo(b("v"));
        }
    }

    @Test
    void neverLosesUnforcedWritesToAPowerCut() throws IOException {
        // The other side of the same model: it is the force that keeps a write, not the write call.
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
            store.put(b("k"), b("v"));
            assertThat(store.get(b("k"))).isEqualTo(b("v"));
            disk.powerCut(null);
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
            assertThat(store.get(b("k"))).isNull();
        }
    }

    @Test
    void intervalForcesWithinTheInterval() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions options = opts(FsyncPolicy.INTERVAL).withFsyncInterval(Duration.ofMillis(50));
        try (WalStore store = open(disk, options)) {
            long before = disk.forces();
            store.put(b("k"), b("v"));
            long acked = System.nanoTime();
            while (disk.forces() == before) {
                assertThat(System.nanoTime() - acked)
                        .as("force within a few intervals")
                        .isLessThan(TimeUnit.SECONDS.toNanos(2));
                Thread.sleep(5);
            }
            disk.powerCut(null);
        }
        try (WalStore store = open(disk, options)) {
            assertThat(store.get(b("k"))).isEqualTo(b("v"));
        }
    }

    @Test
    void underIntervalALoneWriteIsForcedWithoutAnyWriteAfterIt() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions options = opts(FsyncPolicy.INTERVAL).withFsyncInterval(Duration.ofMillis(50));
        try (WalStore store = open(disk, options)) {
            Thread.sleep(
                    200); // idle for a few intervals first: the writer has nothing to wake up for
            long before = disk.forces();
            store.put(b("k"), b("v"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> disk.forces() > before);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> store.stats().recordsForced() == 1);
            disk.powerCut(null); // keeps only what was forced
        }
        try (WalStore store = open(disk, options)) {
            assertThat(store.get(b("k"))).isEqualTo(b("v"));
        }
    }

    @Test
    void aFailedWriteIsAnErrorAndTheStoreGoesOn() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
            disk.failNext(SimulatedDirectory.Op.WRITE, 1);
            assertThatThrownBy(() -> store.put(b("b"), b("2")))
                    .isInstanceOf(StorageFailureException.class)
                    .hasMessageContaining("not acknowledged");
            assertThat(store.get(b("b"))).as("a failed write is not applied").isNull();
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            store.put(b("c"), b("3"));
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(contents(store)).containsOnlyKeys(b("a"), b("c"));
            assertThat(store.recovery().droppedBytes()).isZero();
        }
    }

    @Test
    void aFailedForceIsAnErrorAndTheHalfWrittenBatchIsCutBack() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
            disk.failNext(SimulatedDirectory.Op.FORCE, 1);
            assertThatThrownBy(() -> store.put(b("b"), b("2")))
                    .isInstanceOf(StorageFailureException.class);
            assertThat(store.get(b("b"))).isNull();
            store.put(b("c"), b("3"));
            assertThat(store.stats().failure()).isNull();
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(contents(store)).containsOnlyKeys(b("a"), b("c"));
        }
    }

    @Test
    void aFullDiskRefusesWritesAndKeepsEverythingAcknowledged() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        List<String> acked = new ArrayList<>();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            disk.capacity(1000);
            int refused = 0;
            for (int i = 0; i < 100; i++) {
                try {
                    store.put(b("key" + i), b("value" + i));
                    acked.add("key" + i);
                } catch (StorageFailureException e) {
                    refused++;
                }
            }
            assertThat(refused).isPositive();
            assertThat(acked).isNotEmpty();
            assertThat(store.get(b(acked.get(0)))).as("reads go on").isNotNull();
            disk.powerCut(new Random(1));
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            for (String key : acked) {
                assertThat(store.get(b(key))).as(key).isNotNull();
            }
            assertThat(store.size()).isEqualTo(acked.size());
        }
    }

    @Test
    void whenTheRepairFailsTooWritesAreRefusedButReadsGoOn() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
            disk.failNext(SimulatedDirectory.Op.FORCE, 1);
            disk.failNext(SimulatedDirectory.Op.TRUNCATE, 1);
            assertThatThrownBy(() -> store.put(b("b"), b("2")))
                    .isInstanceOf(StorageFailureException.class);
            assertThatThrownBy(() -> store.put(b("c"), b("3")))
                    .isInstanceOf(StorageFailureException.class)
                    .hasMessageContaining("refused until restart");
            assertThat(store.stats().failure()).contains("refused");
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            assertThat(store.get(b("c"))).isNull();
        }
    }

    @Test
    void writesAfterCloseAreRefused(@TempDir Path dir) throws IOException {
        WalStore store =
                WalStore.open(new MapStore(new ConcurrentHashMap<>()), WalOptions.defaults(dir));
        store.put(b("a"), b("1"));
        store.close();
        assertThatThrownBy(() -> store.put(b("b"), b("2")))
                .isInstanceOf(StorageFailureException.class)
                .hasMessageContaining("closed");
        assertThat(Files.size(dir.resolve(WalStore.LOG_NAME)))
                .isEqualTo(WalRecord.encodedSize(new WalRecord.Put(b("a"), b("1"))));
    }
}
