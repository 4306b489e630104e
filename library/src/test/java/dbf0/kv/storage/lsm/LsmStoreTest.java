package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LsmStoreTest {

    @TempDir Path dir;

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Small memtables and tables, so that a few thousand writes flush and compact. */
    static LsmOptions small(Path dir, CompactionStyle style) {
        return LsmOptions.defaults(dir)
                .withMemtableBytes(LsmOptions.MIN_MEMTABLE_BYTES)
                .withFsync(FsyncPolicy.NEVER)
                .withCompaction(style)
                .withTuning(
                        LsmTuning.DEFAULTS.withL0Triggers(2, 8, 12).withSizes(16 << 10, 64 << 10));
    }

    @Test
    void putGetDeleteScanAndReopen() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("b"), b("2"));
            store.put(b("a"), b("1"));
            store.put(b("c"), b("3"));
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            assertThat(store.delete(b("b"))).isTrue();
            assertThat(store.delete(b("b"))).isFalse();
            assertThat(store.get(b("b"))).isNull();
            assertThat(store.scan(null, null, 10))
                    .containsExactly(new KeyValue(b("a"), b("1")), new KeyValue(b("c"), b("3")));
            assertThat(store.ordered()).isTrue();
            assertThat(store.mayWaitForDisk()).isTrue();
            assertThat(store.largestValueBytes()).isEqualTo(1);
        }
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            assertThat(store.get(b("b"))).isNull();
            assertThat(store.size()).isEqualTo(2);
            assertThat(store.recovery().logs()).hasSize(1);
            assertThat(store.stats().tablesPerLevel().get(0)).isEqualTo(1); // the replayed log
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")))
                    .hasSize(1);
        }
    }

    @Test
    void flushesAndCompactsAndKeepsEverythingAcrossReopen() throws Exception {
        for (CompactionStyle style : CompactionStyle.values()) {
            Path sub = dir.resolve(style.name());
            TreeMap<ByteArrayWrapper, ByteArrayWrapper> model = new TreeMap<>();
            Random random = new Random(style.ordinal());
            for (int round = 0; round < 3; round++) {
                try (LsmStore store = LsmStore.open(small(sub, style))) {
                    check(store, model);
                    for (int i = 0; i < 4000; i++) {
                        ByteArrayWrapper key = b(String.format("k%05d", random.nextInt(3000)));
                        int op = random.nextInt(10);
                        if (op < 7) {
                            byte[] value = new byte[random.nextInt(200)];
                            random.nextBytes(value);
                            store.put(key, new ByteArrayWrapper(value));
                            model.put(key, new ByteArrayWrapper(value));
                        } else if (op < 9) {
                            assertThat(store.delete(key)).isEqualTo(model.remove(key) != null);
                        } else {
                            assertThat(store.get(key)).isEqualTo(model.get(key));
                        }
                    }
                    check(store, model);
                    LsmStats stats = store.stats();
                    assertThat(stats.flushes()).isPositive();
                    assertThat(stats.compactions()).isPositive();
                }
            }
        }
    }

    static void check(LsmStore store, TreeMap<ByteArrayWrapper, ByteArrayWrapper> model) {
        for (Map.Entry<ByteArrayWrapper, ByteArrayWrapper> e : model.entrySet()) {
            assertThat(store.get(e.getKey())).as("key %s", e.getKey()).isEqualTo(e.getValue());
        }
        List<KeyValue> all = store.scan(null, null, Integer.MAX_VALUE);
        List<KeyValue> expected = new ArrayList<>();
        model.forEach((k, v) -> expected.add(new KeyValue(k, v)));
        assertThat(all).isEqualTo(expected);
    }
}
