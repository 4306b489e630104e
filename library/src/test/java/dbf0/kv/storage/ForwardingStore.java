package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * Test helper: a {@link Store} that passes every call to a {@link MapStore} over a
 * ConcurrentHashMap, so that a test's store overrides only the calls it watches, delays or refuses
 * (counting reads, holding writes like a slow fsync, pausing a snapshot).
 */
public class ForwardingStore implements Store {

    /** Where every call goes unless a subclass says otherwise. */
    protected final MapStore map = new MapStore(new ConcurrentHashMap<>());

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return map.get(key);
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        map.put(key, value);
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        return map.delete(key);
    }

    @Override
    public long largestValueBytes() {
        return map.largestValueBytes();
    }

    @Override
    public boolean ordered() {
        return map.ordered();
    }

    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        return map.scan(from, toExclusive, limit);
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public void clear() {
        map.clear();
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        map.forEach(action);
    }
}
