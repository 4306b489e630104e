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
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Rewrite (compaction): the data stays, the log shrinks, a failure changes nothing. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WalRewriteTest {

    @Test
    void aRewriteKeepsTheDataShrinksTheLogAndWritesGoOnMeanwhile() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        Map<ByteArrayWrapper, ByteArrayWrapper> expected = new HashMap<>();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            for (int round = 0; round < 20; round++) {
                for (int k = 0; k < 50; k++) {
                    store.put(b("k" + k), b("v" + round));
                    expected.put(b("k" + k), b("v" + round));
                }
            }
            long before = store.stats().logBytes();
            var rewrite = store.rewriteAsync();
            for (int k = 0; k < 50; k += 2) { // writes racing the rewrite
                store.put(b("k" + k), b("during"));
                expected.put(b("k" + k), b("during"));
            }
            store.delete(b("k1"));
            expected.remove(b("k1"));
            rewrite.get(20, TimeUnit.SECONDS);
            store.put(b("after"), b("x"));
            expected.put(b("after"), b("x"));
            WalStats stats = store.stats();
            assertThat(stats.rewrites()).isEqualTo(1);
            assertThat(stats.lastRewriteStatus()).isEqualTo("ok");
            assertThat(stats.logBytes()).isLessThan(before / 5);
            assertThat(disk.bytes(WalStore.REWRITE_NAME)).isNull();
            disk.powerCut(null);
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(contents(store)).isEqualTo(expected);
        }
    }

    @Test
    void aFailedRewriteLeavesTheLogAsItWas() throws Exception {
        for (SimulatedDirectory.Op op :
                List.of(
                        SimulatedDirectory.Op.RENAME,
                        SimulatedDirectory.Op.FORCE,
                        SimulatedDirectory.Op.OPEN)) {
            SimulatedDirectory disk = new SimulatedDirectory();
            try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
                for (int i = 0; i < 100; i++) {
                    store.put(b("k" + (i % 10)), b("v" + i));
                }
                disk.failNext(op, 1);
                assertThatThrownBy(() -> store.rewriteAsync().get(20, TimeUnit.SECONDS))
                        .as(op.name())
                        .hasCauseInstanceOf(StorageFailureException.class);
                assertThat(store.stats().lastRewriteStatus()).startsWith("failed");
                store.put(b("after"), b("x"));
                store.syncAsync().get(5, TimeUnit.SECONDS);
            }
            try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
                assertThat(store.size()).as(op.name()).isEqualTo(11);
                assertThat(store.get(b("k9"))).isEqualTo(b("v99"));
                assertThat(store.recovery().staleRewrite()).isFalse();
            }
        }
    }

    @Test
    void aRewriteThatFallsTooFarBehindIsAbandonedAtTheSideBufferLimit() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        CountDownLatch snapshotStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // A map whose snapshot waits until the test has written past the limit.
        Store slow =
                new ForwardingStore() {
                    @Override
                    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
                        snapshotStarted.countDown();
                        try {
                            release.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        map.forEach(action);
                    }
                };
        WalLimits limits = WalLimits.DEFAULTS.withRewriteSideBufferBytes(1024);
        try (WalStore store = WalStore.open(slow, opts(FsyncPolicy.NEVER), disk.mount(), limits)) {
            store.put(b("before"), b("x"));
            var rewrite = store.rewriteAsync();
            assertThat(snapshotStarted.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 100; i++) { // 100 records of 25+ bytes: past 1 KiB
                store.put(b("k" + i), b("value-" + i));
            }
            release.countDown();
            assertThatThrownBy(() -> rewrite.get(20, TimeUnit.SECONDS))
                    .hasMessageContaining("side buffer");
            assertThat(store.stats().lastRewriteStatus()).contains("1024-byte side buffer");
            assertThat(store.stats().rewrites()).isZero();
            store.syncAsync().get(5, TimeUnit.SECONDS);
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
            assertThat(store.size()).isEqualTo(101); // the log was left as it was, and complete
            assertThat(store.recovery().staleRewrite()).isFalse();
        }
    }

    @Test
    void theLogRewritesItselfPastTheGrowthFactor() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        WalOptions options = opts(FsyncPolicy.NEVER).withRewrite(2.0, 4096);
        try (WalStore store = open(disk, options)) {
            for (int i = 0; i < 2000; i++) {
                store.put(b("k" + (i % 10)), b("value-" + i));
                if (i % 100 == 99) {
                    // Every write racing a rewrite lands in the new log whole, and a write under
                    // never costs about a microsecond: pace them, so that at most 100 race each
                    // rewrite.
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> !store.stats().rewriteInProgress());
                }
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(
                            () ->
                                    store.stats().rewrites() > 0
                                            && !store.stats().rewriteInProgress());
            // bounded: after rewrites, 10 live keys and the 100 writes that raced the last rewrite
            // stay well under twice the 4 KiB minimum plus those writes
            assertThat(store.stats().logBytes()).isLessThan(2000L * 20);
            store.syncAsync().get(5, TimeUnit.SECONDS);
        }
        try (WalStore store = open(disk, options)) {
            assertThat(store.size()).isEqualTo(10);
            assertThat(store.get(b("k9"))).isEqualTo(b("value-1999"));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void underIntervalARewriteDuringConcurrentWritesLosesNothing(int group) throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        Map<ByteArrayWrapper, ByteArrayWrapper> live;
        try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
            for (int i = 0; i < 20_000; i++) { // keys the snapshot takes a while over
                store.put(b("fill" + i), b("v"));
            }
            long before = store.stats().recordsWritten();
            AtomicBoolean writing = new AtomicBoolean(true);
            var rewrite = new CompletableFuture<Void>();
            Thread starter =
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        // start the rewrite once the writers are going, and stop
                                        // them the moment it has switched
                                        // files: most keys' last writes then fall between the mark
                                        // and the switch
                                        Awaitility.await()
                                                .atMost(Duration.ofSeconds(20))
                                                .until(
                                                        () ->
                                                                store.stats().recordsWritten()
                                                                        > before + 1_000);
                                        store.rewriteAsync()
                                                .whenComplete(
                                                        (v, e) -> {
                                                            writing.set(false);
                                                            if (e != null) {
                                                                rewrite.completeExceptionally(e);
                                                            } else {
                                                                rewrite.complete(null);
                                                            }
                                                        });
                                    });
            runWriters(store, 4, 0, 64, group, writing::get);
            starter.join();
            rewrite.get(20, TimeUnit.SECONDS);
            live = contents(store);
            WalStats stats = store.stats();
            assertThat(stats.rewrites()).isEqualTo(1);
            assertThat(stats.lastRewriteStatus()).isEqualTo("ok");
        }
        try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
            assertThat(differences(live, contents(store))).as("live vs replayed").isEmpty();
        }
    }
}
