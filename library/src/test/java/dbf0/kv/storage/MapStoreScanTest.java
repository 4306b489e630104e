package dbf0.kv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;

class MapStoreScanTest {

    private static ByteArrayWrapper b(int... bytes) {
        byte[] array = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            array[i] = (byte) bytes[i];
        }
        return new ByteArrayWrapper(array);
    }

    private static List<ByteArrayWrapper> keys(List<KeyValue> pairs) {
        return pairs.stream().map(KeyValue::key).toList();
    }

    /** Keys 00, 01, 7f, 80, ff, ff00: 0x80 and 0xff sort after 0x7f, as unsigned bytes do. */
    private static MapStore filled(MapStore store) {
        for (ByteArrayWrapper key : List.of(b(0xff, 0), b(0x80), b(0), b(0xff), b(0x7f), b(1))) {
            store.put(key, b(key.length()));
        }
        return store;
    }

    @Test
    void aSortedMapScansInUnsignedByteOrderWithinItsBoundsAndLimit() {
        for (MapStore store :
                List.of(
                        filled(new MapStore(new ConcurrentSkipListMap<>())),
                        filled(new MapStore(new TreeMap<>())))) {
            assertThat(store.ordered()).isTrue();
            assertThat(keys(store.scan(null, null, 100)))
                    .containsExactly(b(0), b(1), b(0x7f), b(0x80), b(0xff), b(0xff, 0));
            assertThat(keys(store.scan(b(1), b(0xff), 100)))
                    .as("from inclusive, to exclusive")
                    .containsExactly(b(1), b(0x7f), b(0x80));
            assertThat(keys(store.scan(b(0x7f, 0), null, 2))).containsExactly(b(0x80), b(0xff));
            assertThat(keys(store.scan(null, b(1), 100))).containsExactly(b(0));
            assertThat(store.scan(b(0x80), b(0x80), 5)).isEmpty();
            assertThat(store.scan(b(0xff), b(1), 5)).as("from after to").isEmpty();
            assertThat(store.scan(b(0x7f), null, 1)).containsExactly(new KeyValue(b(0x7f), b(1)));
            assertThatThrownBy(() -> store.scan(null, null, 0))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aHashMapOrAForeignOrderSaysItCannotScan() {
        MapStore hash = filled(new MapStore(new ConcurrentHashMap<>()));
        MapStore reversed =
                filled(new MapStore(new TreeMap<>(Comparator.<ByteArrayWrapper>reverseOrder())));
        for (MapStore store : List.of(hash, reversed)) {
            assertThat(store.ordered()).isFalse();
            assertThatThrownBy(() -> store.scan(null, null, 10))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("cannot scan a range");
        }
        assertThat(new MapStore(MapBackends.create("skiplist")).ordered()).isTrue();
        assertThat(new MapStore(MapBackends.create("java.util.TreeMap")).ordered()).isTrue();
    }
}
