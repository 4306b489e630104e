package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deleted keys' space is reused, and a vacuum gives it back to the file system. */
class BTreeVacuumTest {

    static BTreeOptions options(Path dir) {
        return BTreeOptions.defaults(dir)
                .withPageSize(1024)
                .withBufferPoolBytes(64 * 1024)
                .withCheckpointLogBytes(64 * 1024)
                .withFsync(FsyncPolicy.NEVER);
    }

    static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(String.format("key-%06d", i).getBytes());
    }

    /** Every third value goes to overflow pages (a 1 KiB page keeps at most 248 bytes inline). */
    static ByteArrayWrapper value(int i, int version) {
        byte[] v = new byte[i % 3 == 0 ? 600 + i % 500 : 20 + i % 40];
        new Random(i * 31L + version).nextBytes(v);
        return new ByteArrayWrapper(v);
    }

    static long fileBytes(Path dir) throws Exception {
        return Files.size(dir.resolve(TreeFile.NAME));
    }

    @Test
    void deletedKeysSpaceIsReusedByNewWrites(@TempDir Path dir) throws Exception {
        int n = 3000;
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 0; i < n; i++) {
                store.put(key(i), value(i, 0));
            }
        }
        long before;
        long pages;
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            pages = store.stats().pages(); // opening checkpoints: the file has every page now
            before = fileBytes(dir);
        }
        for (int round = 1; round <= 3; round++) {
            try (BTreeStore store = BTreeStore.open(options(dir))) {
                for (int i = 0; i < n; i += 2) {
                    assertThat(store.delete(key(i))).isTrue();
                }
                assertThat(store.stats().freePages()).as("freed overflow pages").isPositive();
                for (int i = 0; i < n; i += 2) {
                    store.put(key(i), value(i, round));
                }
                assertThat(store.stats().freePages()).as("all reused").isZero();
                assertThat(store.stats().pages()).as("round %d", round).isEqualTo(pages);
            }
        }
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            assertThat(fileBytes(dir)).isEqualTo(before);
            for (int i = 0; i < n; i++) {
                assertThat(store.get(key(i))).isEqualTo(value(i, i % 2 == 0 ? 3 : 0));
            }
        }
    }

    @Test
    void aVacuumShrinksTheFileAndKeepsEveryKey(@TempDir Path dir) throws Exception {
        int n = 4000;
        VacuumResult result;
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 0; i < n; i++) {
                store.put(key(i), value(i, 0));
            }
        }
        long before = fileBytes(dir);
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 0; i < n; i++) {
                if (i % 4 != 0) {
                    store.delete(key(i)); // some of these are only in the pool, not yet in the file
                }
            }
            store.put(key(n), value(n, 0));
            result = store.vacuum();
            assertThat(result.keys()).isEqualTo(n / 4 + 1);
            assertThat(result.pagesAfter()).isLessThan(result.pagesBefore() / 2);
            assertThat(fileBytes(dir)).isEqualTo(result.pagesAfter() * 1024);
            assertThat(store.stats().freePages()).isZero();
            assertEveryKey(store, n);
            for (int i = 1; i < n; i += 4) { // into full leaves: they split
                store.put(key(i), value(i, 1));
            }
        }
        assertThat(fileBytes(dir)).isLessThan(before);
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 1; i < n; i += 4) {
                assertThat(store.get(key(i))).isEqualTo(value(i, 1));
            }
            assertEveryKey(store, n);
            assertThat(store.keyCount()).isEqualTo(n / 2 + 1);
        }
    }

    private static void assertEveryKey(BTreeStore store, int n) {
        for (int i = 0; i <= n; i += 4) {
            assertThat(store.get(key(i))).as("key %d", i).isEqualTo(value(i, 0));
            assertThat(store.get(key(i + 2))).as("deleted key %d", i + 2).isNull();
        }
        List<KeyValue> all = store.scan(key(0), null, 10 * n);
        assertThat(all).hasSize((int) store.keyCount());
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i - 1).key().compareTo(all.get(i).key())).isNegative();
        }
    }

    @Test
    void aVacuumOfAnEmptiedTreeLeavesTwoPages(@TempDir Path dir) throws Exception {
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 0; i < 500; i++) {
                store.put(key(i), value(i, 0));
            }
            for (int i = 0; i < 500; i++) {
                store.delete(key(i));
            }
            VacuumResult r = store.vacuum();
            assertThat(r.pagesBefore()).isGreaterThan(100);
            assertThat(r.pagesAfter()).as("the meta page and an empty root leaf").isEqualTo(2);
            assertThat(r.keys()).isZero();
            store.put(key(7), value(7, 0));
            assertThat(store.get(key(7))).isEqualTo(value(7, 0));
        }
        assertThat(fileBytes(dir)).isEqualTo(2 * 1024);
    }

    @Test
    void vacuumAsyncReportsItsOutcome(@TempDir Path dir) throws Exception {
        try (BTreeStore store = BTreeStore.open(options(dir))) {
            for (int i = 0; i < 300; i++) {
                store.put(key(i), value(i, 0));
            }
            VacuumResult r = store.vacuumAsync().get();
            assertThat(r.keys()).isEqualTo(300);
            assertThat(store.persistenceStats().rewrites()).isEqualTo(1);
            assertThat(store.persistenceStats().rewriteInProgress()).isFalse();
            assertThat(store.persistenceStats().lastRewriteStatus())
                    .startsWith("ok: vacuumed")
                    .contains("300 keys");
        }
    }
}
