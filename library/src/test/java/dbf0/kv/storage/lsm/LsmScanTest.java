package dbf0.kv.storage.lsm;

import static dbf0.kv.storage.lsm.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Range scans over memtables and several levels, with tombstones, against a sorted map. */
class LsmScanTest {

    @TempDir Path dir;

    @Test
    void scansHonourBoundsLimitsAndTombstonesAcrossLevels() throws Exception {
        TreeMap<ByteArrayWrapper, ByteArrayWrapper> model = new TreeMap<>();
        Random random = new Random(5);
        try (LsmStore store = LsmStore.open(LsmStoreTest.small(dir, CompactionStyle.LEVELED))) {
            for (int i = 0; i < 6000; i++) {
                ByteArrayWrapper key = b(String.format("%04d", random.nextInt(2000)));
                if (random.nextInt(4) == 0) {
                    store.delete(key);
                    model.remove(key);
                } else {
                    ByteArrayWrapper value = b("v" + i + "-".repeat(random.nextInt(100)));
                    store.put(key, value);
                    model.put(key, value);
                }
            }
            List<Integer> levels = store.stats().tablesPerLevel();
            assertThat(levels.stream().skip(1).mapToInt(Integer::intValue).sum())
                    .as("tables below level 0: %s", levels)
                    .isPositive();
            for (int i = 0; i < 300; i++) {
                int lo = random.nextInt(2100) - 50;
                int hi = lo + random.nextInt(300);
                ByteArrayWrapper from = lo < 0 ? null : b(String.format("%04d", lo));
                ByteArrayWrapper to = hi >= 2000 ? null : b(String.format("%04d", hi));
                int limit = 1 + random.nextInt(200);
                assertThat(store.scan(from, to, limit))
                        .as("[%s, %s) limit %d", from, to, limit)
                        .isEqualTo(expected(model, from, to, limit));
            }
            // a key between stored keys, and a bound equal to a key: from inclusive, to exclusive
            ByteArrayWrapper first = model.firstKey();
            assertThat(store.scan(first, first, 5)).isEmpty();
            assertThat(store.scan(first, null, 1))
                    .containsExactly(new KeyValue(first, model.get(first)));
        }
    }

    @Test
    void getAsyncAnswersFromMemoryAtOnceAndFromDiskOnAReadThread() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("a"), b("1"));
            assertThat(store.getAsync(b("a")).getNow(null)).isEqualTo(b("1"));
        }
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            CompletableFuture<ByteArrayWrapper> cold = store.getAsync(b("a"));
            assertThat(cold.get()).isEqualTo(b("1"));
            assertThat(store.getAsync(b("a")).isDone()).isTrue(); // its block is cached now
            assertThat(store.getAsync(b("zz")).isDone()).isTrue(); // the bloom filter says no
            assertThat(store.stats().blocksRead()).isEqualTo(1);
        }
    }

    static List<KeyValue> expected(
            TreeMap<ByteArrayWrapper, ByteArrayWrapper> model,
            ByteArrayWrapper from,
            ByteArrayWrapper to,
            int limit) {
        List<KeyValue> out = new ArrayList<>();
        var view =
                from == null
                        ? (to == null ? model : model.headMap(to, false))
                        : (to == null
                                ? model.tailMap(from, true)
                                : model.subMap(from, true, to, false));
        if (from != null && to != null && from.compareTo(to) >= 0) {
            return out;
        }
        view.forEach(
                (k, v) -> {
                    if (out.size() < limit) {
                        out.add(new KeyValue(k, v));
                    }
                });
        return out;
    }
}
