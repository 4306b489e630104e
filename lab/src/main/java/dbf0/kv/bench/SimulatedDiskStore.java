package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The part every pretend disk shares: the data really lives in memory, in a {@link MapStore}, and
 * writes go straight to it; only reads are made slow, and how slow is the subclass's business
 * ({@link #get} and {@link #getAsync}). It says {@link #mayWaitForDisk()} so that the server treats
 * it as a disk store and keeps its reads off the event loop. Used by {@link DiskStallBench}'s store
 * and by the server tests' store whose reads wait for a latch.
 */
public abstract class SimulatedDiskStore implements Store {

    /** The data; a subclass reads it, after whatever wait it plays. */
    protected final MapStore data = new MapStore(new ConcurrentHashMap<>());

    /** Creates an empty store. */
    protected SimulatedDiskStore() {}

    @Override
    public final boolean mayWaitForDisk() {
        return true;
    }

    @Override
    public final void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        data.put(key, value);
    }

    @Override
    public final boolean delete(ByteArrayWrapper key) {
        return data.delete(key);
    }

    @Override
    public final int size() {
        return data.size();
    }

    @Override
    public final void clear() {
        data.clear();
    }

    @Override
    public final void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        data.forEach(action);
    }
}
