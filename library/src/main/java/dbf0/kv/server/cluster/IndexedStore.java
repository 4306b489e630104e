package dbf0.kv.server.cluster;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.Store;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A cluster node's store: the server's store, with every write also told to the {@link SlotIndex}.
 * Every session, whatever its protocol (RESP, v2, v1), and MIGRATE and DBF0-RESTORE write through
 * it, so no write can miss the index; reads pass straight through. A standalone server never makes
 * one, and pays nothing.
 *
 * <p>A write costs one CRC of its key (the routing's slot is not passed down: the v1 and v2 paths
 * reach the store without it) and one hash map operation under an uncontended lock.
 */
class IndexedStore implements Store {

    private final Store store;
    private final SlotIndex index;

    IndexedStore(Store store, SlotIndex index) {
        this.store = store;
        this.index = index;
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return store.get(key);
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        index.put(key, value);
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        boolean was = store.delete(key);
        index.deleted(key);
        return was;
    }

    @Override
    public long largestValueBytes() {
        return store.largestValueBytes();
    }

    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return index.putAsync(key, value);
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        CompletableFuture<Boolean> delete = store.deleteAsync(key);
        index.deleted(key);
        return delete;
    }

    /**
     * Once the clear is done, every slot is pruned of the keys it took away: on a thread of its
     * own, not on whichever thread completes the clear, which may hold the store's locks.
     */
    @Override
    public CompletableFuture<Boolean> clearAsync() {
        CompletableFuture<Boolean> clear = store.clearAsync();
        clear.thenRun(() -> Thread.ofVirtual().name("slot-index-prune").start(index::cleared));
        return clear;
    }

    @Override
    public void flush() {
        store.flush();
    }

    @Override
    public void awaitSubmitted() {
        store.awaitSubmitted();
    }

    @Override
    public boolean mayWaitForDisk() {
        return store.mayWaitForDisk();
    }

    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        return store.getAsync(key);
    }

    @Override
    public boolean ordered() {
        return store.ordered();
    }

    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        return store.scan(from, toExclusive, limit);
    }

    @Override
    public boolean contains(ByteArrayWrapper key) {
        return store.contains(key);
    }

    @Override
    public int size() {
        return store.size();
    }

    @Override
    public long keyCount() {
        return store.keyCount();
    }

    @Override
    public boolean keyCountIsEstimate() {
        return store.keyCountIsEstimate();
    }

    @Override
    public void clear() {
        store.clear();
        index.cleared();
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        store.forEach(action);
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
