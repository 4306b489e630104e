package dbf0.kv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.Striped;
import dbf0.common.ByteArrayWrapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The striped and read/write-locked backends: every Map call the server makes, alone and under
 * concurrent writers.
 */
class LockedMapsTest {

    private static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(
                new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i});
    }

    @ParameterizedTest
    @ValueSource(strings = {"striped", "striped:1", "striped:7", "rwlock"})
    void everyCallTheServerMakes(String name) {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create(name);
        Store store = new MapStore(map);
        assertThat(map.isEmpty()).isTrue();
        for (int i = 0; i < 1000; i++) {
            assertThat(map.put(key(i), key(-i))).isNull();
        }
        assertThat(map.put(key(5), key(55))).isEqualTo(key(-5)); // replacing answers the old value
        assertThat(store.size()).isEqualTo(1000);
        assertThat(store.get(key(5))).isEqualTo(key(55));
        assertThat(store.get(key(999))).isEqualTo(key(-999));
        assertThat(store.get(key(1000))).isNull();
        assertThat(store.contains(key(0))).isTrue();
        assertThat(store.contains(key(1000))).isFalse();
        assertThat(store.delete(key(0))).isTrue();
        assertThat(store.delete(key(0))).isFalse();
        assertThat(map.putIfAbsent(key(1), key(11))).isEqualTo(key(-1));
        assertThat(map.putIfAbsent(key(0), key(10))).isNull();
        Map<ByteArrayWrapper, ByteArrayWrapper> visited = new HashMap<>();
        store.forEach(visited::put);
        assertThat(visited)
                .hasSize(1000)
                .containsEntry(key(0), key(10))
                .containsEntry(key(5), key(55));
        assertThat(Map.copyOf(map)).isEqualTo(visited); // through entrySet
        store.clear();
        assertThat(store.size()).isZero();
        assertThat(map.isEmpty()).isTrue();
        assertThat(MapBackends.isThreadSafe(name)).isTrue();
    }

    @Test
    void stripedNamesTheirStripeCount() {
        assertThat(((StripedMap<?, ?>) MapBackends.create("striped")).stripes()).isEqualTo(16);
        assertThat(((StripedMap<?, ?>) MapBackends.create("striped:64")).stripes()).isEqualTo(64);
        // Striped rounds the count up to a power of two
        assertThat(((StripedMap<?, ?>) MapBackends.create("striped:7")).stripes()).isEqualTo(8);
        assertThat(new StripedMap<>(1).stripes()).isEqualTo(1);
        assertThatThrownBy(() -> MapBackends.create("striped:0"))
                .hasMessageContaining("1 to 65536");
        assertThatThrownBy(() -> MapBackends.create("striped:x"))
                .hasMessageContaining("1 to 65536");
        assertThat(MapBackends.isThreadSafe("striped:0")).isFalse();
        assertThat(MapBackends.names()).contains("striped", "rwlock");
    }

    /** HashMap takes a null key, and so does the striped map (Striped alone would not). */
    @Test
    void stripedTakesANullKey() {
        StripedMap<ByteArrayWrapper, ByteArrayWrapper> map = new StripedMap<>();
        assertThat(map.put(null, key(1))).isNull();
        assertThat(map.get(null)).isEqualTo(key(1));
        assertThat(map.containsKey(null)).isTrue();
        assertThat(map.remove(null)).isEqualTo(key(1));
        assertThat(map).isEmpty();
    }

    /** Keys of consecutive indexes spread over all the stripes, not a few of them. */
    @Test
    void keysSpreadOverTheStripes() throws Exception {
        StripedMap<ByteArrayWrapper, ByteArrayWrapper> map = new StripedMap<>(16);
        for (int i = 0; i < 16_000; i++) {
            map.put(key(i), key(i));
        }
        java.lang.reflect.Field field = StripedMap.class.getDeclaredField("stripes");
        field.setAccessible(true);
        Striped<?> striped = (Striped<?>) field.get(map);
        List<HashMap<?, ?>> stripes = new ArrayList<>();
        for (int i = 0; i < striped.size(); i++) {
            stripes.add((HashMap<?, ?>) striped.getAt(i));
        }
        // 1,000 expected per stripe; a standard deviation is about 31
        assertThat(stripes).hasSize(16).allSatisfy(s -> assertThat(s.size()).isBetween(800, 1200));
    }

    /**
     * Writers on distinct keys lose nothing: a HashMap shared this way loses entries when two
     * resizes race (the race demos show it); a correctly locked map keeps every one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"striped", "striped:3", "rwlock"})
    @Timeout(60)
    void concurrentWritersOnDistinctKeysLoseNothing(String name) throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create(name);
        int writers = 8;
        int perWriter = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int base = w * perWriter;
            threads.add(
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        try {
                                            start.await();
                                            for (int i = base; i < base + perWriter; i++) {
                                                map.put(key(i), key(i));
                                                if (!key(i).equals(map.get(key(i)))) {
                                                    throw new AssertionError(
                                                            "lost the key this writer had just"
                                                                    + " written: "
                                                                    + i);
                                                }
                                            }
                                        } catch (Throwable t) {
                                            failure.compareAndSet(null, t);
                                        }
                                    }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(50));
        }
        assertThat(failure.get()).isNull();
        assertThat(map.size()).isEqualTo(writers * perWriter);
        for (int i = 0; i < writers * perWriter; i++) {
            assertThat(map.get(key(i))).isEqualTo(key(i));
        }
    }
}
