package dbf0.kv.bench.disk;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.IOException;

/**
 * The three timed operations for an engine that is one of dbf0's own {@link Store}s: the arrays are
 * wrapped, and a {@link StorageFailureException} (unchecked, as the server wants it) becomes the
 * {@link IOException} the benchmark counts as an engine failure. The subclass supplies the counters
 * and the description, which differ from store to store.
 */
abstract class StoreEngine implements DiskEngine {

    private final Store store;

    StoreEngine(Store store) {
        this.store = store;
    }

    @Override
    public final void put(byte[] key, byte[] value) throws IOException {
        try {
            store.put(new ByteArrayWrapper(key), new ByteArrayWrapper(value));
        } catch (StorageFailureException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public final boolean get(byte[] key) {
        return store.get(new ByteArrayWrapper(key)) != null;
    }

    @Override
    public final boolean delete(byte[] key) throws IOException {
        try {
            return store.delete(new ByteArrayWrapper(key));
        } catch (StorageFailureException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
