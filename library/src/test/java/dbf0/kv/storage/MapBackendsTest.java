package dbf0.kv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class MapBackendsTest {

    @Test
    void onlyWhatIsKnownToBeThreadSafeSaysSo() {
        assertThat(MapBackends.names())
                .allMatch(name -> MapBackends.isThreadSafe(name) == !name.equals("hashmap"));
        assertThat(MapBackends.isThreadSafe("java.util.concurrent.ConcurrentSkipListMap")).isTrue();
        assertThat(MapBackends.isThreadSafe("java.util.Hashtable")).isTrue();
        assertThat(MapBackends.isThreadSafe("java.util.TreeMap")).isFalse();
        assertThat(MapBackends.isThreadSafe("java.util.HashMap")).isFalse();
        assertThat(MapBackends.isThreadSafe("no.such.Map")).isFalse();
    }

    @Test
    void createsByNameOrClassNameAndNamesTheChoicesOtherwise() {
        assertThat(MapBackends.create("concurrent")).isInstanceOf(ConcurrentHashMap.class);
        assertThat(MapBackends.create("java.util.HashMap")).isInstanceOf(HashMap.class);
        assertThat(MapBackends.create("concurrent:1000")).isInstanceOf(ConcurrentHashMap.class);
        assertThat(MapBackends.isThreadSafe("concurrent:1000")).isTrue();
        assertThatThrownBy(() -> MapBackends.create("concurrent:0"))
                .hasMessageContaining("concurrent:N wants N");
        assertThatThrownBy(() -> MapBackends.create("nosuchmap"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use one of hashmap, hashtable");
        assertThatThrownBy(() -> MapBackends.create("java.lang.String"))
                .hasMessageContaining("is not a java.util.Map");
    }

    @Test
    void theConstantInstrumentIgnoresWritesAndAnswersOneValueOfTheAskedLength() {
        var map = MapBackends.create("constant:100");
        ByteArrayWrapper k = ByteArrayWrapper.of(1);
        map.put(k, ByteArrayWrapper.of(2));
        assertThat(map.get(k).length()).isEqualTo(100);
        assertThat(map.get(ByteArrayWrapper.of(9)).length()).isEqualTo(100);
        assertThat(map.remove(k)).isNull();
        assertThat(map).isEmpty();
        assertThat(MapBackends.create("constant").get(k).length()).isEqualTo(64);
        assertThat(MapBackends.isThreadSafe("constant:8")).isTrue();
        assertThat(MapBackends.names()).doesNotContain("constant");
        assertThatThrownBy(() -> MapBackends.create("constant:x"))
                .hasMessageContaining("constant:N wants N from 0 to 1048576");
    }

    @Test
    void aMapStoreIsItsMapThroughOneDoor() {
        var map = new HashMap<ByteArrayWrapper, ByteArrayWrapper>();
        Store store = new MapStore(map);
        ByteArrayWrapper k = ByteArrayWrapper.of(1);
        ByteArrayWrapper v = ByteArrayWrapper.of(2);
        assertThat(store.get(k)).isNull();
        store.put(k, v);
        assertThat(map).containsEntry(k, v);
        assertThat(store.contains(k)).isTrue();
        assertThat(store.size()).isEqualTo(1);
        var seen = new HashMap<ByteArrayWrapper, ByteArrayWrapper>();
        store.forEach(seen::put);
        assertThat(seen).isEqualTo(map);
        assertThat(store.delete(k)).isTrue();
        assertThat(store.delete(k)).isFalse();
        store.put(k, v);
        store.clear();
        assertThat(map).isEmpty();
    }
}
