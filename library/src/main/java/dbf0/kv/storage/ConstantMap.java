package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Set;

/**
 * A measuring instrument, not a store: every get answers one fixed value, every put and remove is
 * ignored. A server over it still reads, decodes, hashes nothing, encodes and writes every reply,
 * so a benchmark against it measures the ceiling that the protocol, the server and the load
 * generator allow on this machine with the map taken out. The distance between a real backend's
 * figure and this one is what the map costs (backend {@code constant:N}, N the benchmark's value
 * length).
 *
 * <p>It is empty as far as iteration and {@code size} tell (snapshots and INFO see nothing), and
 * thread-safe because it never changes.
 */
final class ConstantMap extends AbstractMap<ByteArrayWrapper, ByteArrayWrapper> {

    private final ByteArrayWrapper value;

    /**
     * @param valueBytes the length of the value every get answers
     */
    ConstantMap(int valueBytes) {
        this.value = new ByteArrayWrapper(new byte[valueBytes]);
    }

    @Override
    public ByteArrayWrapper get(Object key) {
        return value;
    }

    @Override
    public boolean containsKey(Object key) {
        return true;
    }

    /** Ignored: nothing is stored. */
    @Override
    public ByteArrayWrapper put(ByteArrayWrapper key, ByteArrayWrapper newValue) {
        return null;
    }

    /** Ignored: nothing is stored, so nothing is found to remove. */
    @Override
    public ByteArrayWrapper remove(Object key) {
        return null;
    }

    @Override
    public void clear() {}

    @Override
    public Set<Entry<ByteArrayWrapper, ByteArrayWrapper>> entrySet() {
        return Collections.emptySet();
    }
}
