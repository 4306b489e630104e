package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The slot index against a store that applies submitted writes late and in any order, as two event
 * loops' batches may land under a write-ahead log: after every step, each slot's keys as the index
 * finds them are exactly the keys a walk of the store finds.
 */
class SlotIndexTest {

    /** A store whose writes wait in a list until {@link #applyOne} lands one, picked at random. */
    private static final class LateStore extends ForwardingStore {
        final List<Runnable> pending = new ArrayList<>();

        void applyOne(Random random) {
            pending.remove(random.nextInt(pending.size())).run();
        }

        @Override
        public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            pending.add(
                    () -> {
                        map.put(key, value);
                        done.complete(true);
                    });
            return done;
        }

        @Override
        public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            pending.add(() -> done.complete(map.delete(key)));
            return done;
        }

        @Override
        public CompletableFuture<Boolean> clearAsync() {
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            pending.add(
                    () -> {
                        map.clear();
                        done.complete(true);
                    });
            return done;
        }
    }

    private static ByteArrayWrapper key(int tag, int i) {
        return new ByteArrayWrapper(("{t" + tag + "}k" + i).getBytes(StandardCharsets.UTF_8));
    }

    private static Set<String> walk(Store store, int slot) {
        Set<String> keys = new HashSet<>();
        store.forEach(
                (k, v) -> {
                    if (HashSlots.slot(k.getArray()) == slot) {
                        keys.add(new String(k.getArray(), StandardCharsets.UTF_8));
                    }
                });
        return keys;
    }

    private static Set<String> indexed(SlotIndex index, int slot) {
        Set<String> keys = new HashSet<>();
        for (byte[] k : index.keys(slot, Integer.MAX_VALUE)) {
            keys.add(new String(k, StandardCharsets.UTF_8));
        }
        return keys;
    }

    @Test
    void lateOutOfOrderWritesNeverHideALiveKey() {
        for (int seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            LateStore store = new LateStore();
            SlotIndex index = new SlotIndex(store);
            IndexedStore indexed = new IndexedStore(store, index);
            int[] slots = new int[4];
            for (int t = 0; t < slots.length; t++) {
                slots[t] = HashSlots.slot(key(t, 0).getArray());
            }
            for (int step = 0; step < 3_000; step++) {
                int r = random.nextInt(100);
                ByteArrayWrapper k = key(random.nextInt(slots.length), random.nextInt(12));
                if (r < 35) {
                    indexed.putAsync(k, k);
                } else if (r < 65) {
                    indexed.deleteAsync(k);
                } else if (r < 67) {
                    indexed.put(k, k); // a blocking put: applied at once here
                } else if (r < 68) {
                    indexed.clearAsync();
                } else if (!store.pending.isEmpty()) {
                    store.applyOne(random);
                }
                int t = random.nextInt(slots.length);
                assertThat(indexed(index, slots[t]))
                        .as("seed %d step %d", seed, step)
                        .isEqualTo(walk(store, slots[t]));
                assertThat(index.count(slots[t])).isEqualTo(walk(store, slots[t]).size());
            }
        }
    }

    @Test
    void deletesPruneTheIndexToAboutTheKeysHeld() {
        MapStore store = new MapStore(new ConcurrentHashMap<>());
        SlotIndex index = new SlotIndex(store);
        IndexedStore indexed = new IndexedStore(store, index);
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < 100; i++) {
                indexed.putAsync(key(0, round * 100 + i), key(0, i));
            }
            for (int i = 0; i < 100; i++) {
                indexed.deleteAsync(key(0, round * 100 + i));
            }
        }
        assertThat(index.candidates(HashSlots.slot(key(0, 0).getArray())))
                .as("candidates left after 5,000 keys came and went")
                .isLessThanOrEqualTo(2 * SlotIndex.SLACK + 2);
    }

    @Test
    void buildIndexesWhatTheStoreHolds() {
        MapStore store = new MapStore(new ConcurrentHashMap<>());
        for (int i = 0; i < 500; i++) {
            store.put(key(i % 7, i), key(0, i));
        }
        SlotIndex index = new SlotIndex(store);
        assertThat(index.build()).isEqualTo(500);
        for (int t = 0; t < 7; t++) {
            int slot = HashSlots.slot(key(t, 0).getArray());
            assertThat(indexed(index, slot)).isEqualTo(walk(store, slot));
        }
    }
}
