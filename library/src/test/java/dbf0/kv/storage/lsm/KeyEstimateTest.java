package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LSM store's key count ({@link LsmStore#keyCount}, what DBSIZE answers): exact while nothing
 * older can hold a key, and close to {@link LsmStore#size} (a full merge) under overwrites and
 * deletes spread over memtables and tables, where counting every version would be far off.
 */
class KeyEstimateTest {

    @TempDir Path dir;

    static ByteArrayWrapper b(String s) {
        return LsmStoreTest.b(s);
    }

    static ByteArrayWrapper key(int i) {
        return b(String.format("key%07d", i));
    }

    @Test
    void exactInOneMemtableAndInTheTableItBecomes() throws Exception {
        LsmOptions options = LsmOptions.defaults(dir).withFsync(FsyncPolicy.NEVER);
        try (LsmStore store = LsmStore.open(options)) {
            assertThat(store.keyCountIsEstimate()).isTrue();
            assertThat(store.keyCount()).isZero();
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), b("v"));
            }
            for (int i = 0; i < 500; i++) {
                store.put(key(i), b("again")); // overwrites count once
            }
            for (int i = 900; i < 1100; i++) {
                store.delete(key(i)); // 100 there, 100 missing: a DEL of a missing key is nothing
            }
            for (int i = 950; i < 960; i++) {
                store.put(key(i), b("back")); // deleted, then put again
            }
            assertThat(store.keyCount()).isEqualTo(910).isEqualTo(store.size());
        }
        try (LsmStore store = LsmStore.open(options)) { // the log replayed into a table
            assertThat(store.state().version().level(0)).hasSize(1);
            assertThat(store.state().active().isEmpty()).isTrue();
            assertThat(store.keyCount()).isEqualTo(910);
            store.clear();
            assertThat(store.keyCount()).as("a clear hides the table at once").isZero();
            store.put(key(1), b("v"));
            assertThat(store.keyCount()).isEqualTo(1);
        }
        try (LsmStore store = LsmStore.open(options)) {
            assertThat(store.keyCount()).isEqualTo(1).isEqualTo(store.size());
        }
    }

    @Test
    void overTablesAPutOfAKeyTheyHoldAddsNothingAndADeleteRemovesOne() throws Exception {
        LsmOptions options = LsmOptions.defaults(dir).withFsync(FsyncPolicy.NEVER);
        try (LsmStore store = LsmStore.open(options)) {
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), b("v"));
            }
        }
        try (LsmStore store = LsmStore.open(options)) { // 1,000 keys in a table
            for (int i = 0; i < 1000; i += 2) {
                store.put(key(i), b("new value"));
            }
            for (int i = 1; i < 200; i += 2) {
                store.delete(key(i));
            }
            for (int i = 5000; i < 5100; i++) {
                store.delete(key(i)); // missing
            }
            // In the memtable over the table: 100 deletes and 500 overwrites.
            assertThat(store.size()).isEqualTo(900);
            assertThat(store.keyCount()).isEqualTo(900);
        }
        try (LsmStore store = LsmStore.open(options)) { // two tables, one over the other
            assertThat(store.state().version().level(0)).hasSize(2);
            assertThat(store.keyCount()).isEqualTo(900);
        }
    }

    @Test
    void closeToTheTruthUnderOverwritesAndDeletesThroughFlushesAndCompactions() throws Exception {
        for (CompactionStyle style : CompactionStyle.values()) {
            Random random = new Random(7);
            try (LsmStore store =
                    LsmStore.open(LsmStoreTest.small(dir.resolve(style.name()), style))) {
                int keys = 4000;
                for (int i = 0; i < keys; i++) {
                    store.put(key(i), b("v"));
                }
                double mostVersions = 0;
                for (int round = 0; round < 5; round++) {
                    for (int op = 0; op < 6000; op++) {
                        int k = random.nextInt(keys + keys / 4); // some new, most there
                        if (random.nextInt(10) < 8) {
                            store.put(key(k), b("value " + op));
                        } else {
                            store.delete(key(k));
                        }
                    }
                    long truth = store.size();
                    mostVersions = Math.max(mostVersions, versions(store.state()) / (double) truth);
                    assertThat((double) store.keyCount())
                            .as("%s, round %d: the estimate against %d keys", style, round, truth)
                            .isCloseTo(truth, within(truth * 0.05));
                }
                // Compaction merges versions when it likes; some round found many about.
                assertThat(mostVersions)
                        .as("%s: versions per key at most (the test means something)", style)
                        .isGreaterThan(1.3);
            }
        }
    }

    /** Every cell of every memtable and table: what a count of versions would answer. */
    static long versions(LsmState s) {
        long n = s.active().entries() + (s.immutable() == null ? 0 : s.immutable().entries());
        for (Table t : s.version().all()) {
            n += t.meta().entries();
        }
        return n;
    }
}
