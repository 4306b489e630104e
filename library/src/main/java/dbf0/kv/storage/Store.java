package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The one boundary between the protocol sessions and the data: everything a session may do to the
 * key/value pairs, and nothing else. Sessions never see a raw {@link java.util.Map}.
 *
 * <p>Why an interface of our own rather than {@code Map}: a store is not always just a map. A store
 * that logs every write to disk (durability) or fans writes out to several maps must see every
 * change go through one narrow door, and a {@code Map}'s views ({@code keySet().remove}, {@code
 * entrySet().setValue}, ...) are doors it cannot watch. A map backend is a store ({@link
 * MapStore}), and so is a store that wraps one.
 *
 * <p>Thread safety is the store's, exactly as it is the map's: a {@link MapStore} over a {@link
 * java.util.HashMap} is as unsafe as the HashMap, which is what the race demos show.
 */
public interface Store {

    /**
     * The value stored under {@code key}, or null.
     *
     * @param key the key
     * @return the value, or null if there is none
     */
    ByteArrayWrapper get(ByteArrayWrapper key);

    /**
     * Stores {@code value} under {@code key}, replacing any earlier value.
     *
     * @param key the key
     * @param value the value
     */
    void put(ByteArrayWrapper key, ByteArrayWrapper value);

    /**
     * Removes {@code key}; true if it was there.
     *
     * @param key the key
     * @return true if the key had a value
     */
    boolean delete(ByteArrayWrapper key);

    /**
     * An upper bound on the length of every value the store holds now, for a reader that must size
     * a reply before it reads (a v2 BATCH, whose reply has to fit in one frame). A bound, not the
     * largest value: it may stay high after that value is gone. A put raises it before the value
     * becomes visible, so a reader that took the bound and then reads a longer value has raced with
     * that very put. This default knows nothing, so it is {@link Long#MAX_VALUE}.
     *
     * @return the bound in bytes, or {@link Long#MAX_VALUE} when the store does not track it
     */
    default long largestValueBytes() {
        return Long.MAX_VALUE;
    }

    /**
     * Starts a put and returns at once; the future completes (true) when the put is done as the
     * store promises, or fails with {@link StorageFailureException}. A session with several writes
     * in hand submits them all, calls {@link #flush}, and then waits, so that a store that logs
     * them (a write-ahead log) can make them durable together. This default does the put now.
     *
     * @param key the key
     * @param value the value
     * @return a future that completes with true once the put is done as promised
     */
    default CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        try {
            put(key, value);
            return CompletableFuture.completedFuture(Boolean.TRUE);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * As {@link #putAsync}, for {@link #delete}.
     *
     * @param key the key
     * @return a future that completes with whether the key was there
     */
    default CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        try {
            return CompletableFuture.completedFuture(delete(key));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * As {@link #putAsync}, for {@link #clear}.
     *
     * @return a future that completes (true) once every key is removed as promised
     */
    default CompletableFuture<Boolean> clearAsync() {
        try {
            clear();
            return CompletableFuture.completedFuture(Boolean.TRUE);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Makes the writes this store has accepted so far (from any caller) as durable as it promises,
     * and completes their futures. A store may hold submitted writes back so that the writes of
     * many callers go to disk in one call; a session calls this once it has submitted what it has
     * in hand and before it waits for any of it, so that nothing waits on work that has not
     * started. The futures may complete on another thread that flushed them first, so a caller
     * still waits on its futures afterwards. This default, for stores whose writes are done when
     * submitted, does nothing.
     */
    default void flush() {}

    /**
     * Returns once every write submitted so far, by any thread, is applied, so that reads see it:
     * what a cluster node's MIGRATE needs before it reads the keys it moves. Called off an event
     * loop. This default flushes, which is enough for a store that holds writes back only until a
     * flush.
     */
    default void awaitSubmitted() {
        flush();
    }

    /**
     * True if some {@link #get} may wait for a disk read: a store that keeps its data on disk. A
     * session that serves many connections on one thread (an event loop) then reads through {@link
     * #getAsync}, so that one client's cold key never stalls the others.
     *
     * @return true if a get may wait for a disk; this default says no
     */
    default boolean mayWaitForDisk() {
        return false;
    }

    /**
     * As {@link #get}, without waiting on a disk: the future is complete on return when the store
     * can answer from memory, and otherwise completes on a thread of the store's own. This default
     * answers at once.
     *
     * @param key the key
     * @return a future of the value, or of null if there is none
     */
    default CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        try {
            return CompletableFuture.completedFuture(get(key));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * True if the store keeps its keys in order and answers {@link #scan}: sorted maps and the
     * disk's LSM tree do, hash maps cannot.
     *
     * @return true if {@link #scan} works; this default says no
     */
    default boolean ordered() {
        return false;
    }

    /**
     * Up to {@code limit} pairs with {@code from <= key < toExclusive}, in ascending order of the
     * keys' bytes compared unsigned ({@link ByteArrayWrapper#compareTo}). Like {@link #forEach}, it
     * sees every pair that was there for the whole scan, and may or may not see pairs written
     * during it.
     *
     * @param from the first key to include, or null to start at the smallest
     * @param toExclusive the first key past the range, or null to run to the largest
     * @param limit the most pairs to return, at least 1
     * @return the pairs in key order, at most {@code limit} of them
     * @throws UnsupportedOperationException if the store is not {@link #ordered}
     */
    default List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        throw new UnsupportedOperationException(
                "this store keeps its keys in hash order and cannot scan a range;"
                        + " use a sorted map (skiplist) or the lsm store");
    }

    /**
     * True if {@code key} has a value.
     *
     * @param key the key
     * @return true if {@code get(key)} is not null
     */
    default boolean contains(ByteArrayWrapper key) {
        return get(key) != null;
    }

    /**
     * The number of keys (racy for a store that is not thread-safe).
     *
     * @return the number of keys
     */
    int size();

    /**
     * The number of keys, told without waiting for a disk: what DBSIZE and INFO's keyspace line
     * answer, which monitoring asks every second. This default is {@link #size}, exact for a map in
     * memory (as racy as it); a store whose size would read every key from disk answers an estimate
     * instead, and says so with {@link #keyCountIsEstimate}.
     *
     * @return the number of keys, or an estimate of it, at least 0
     */
    default long keyCount() {
        return size();
    }

    /**
     * True if {@link #keyCount} is an estimate by design (the LSM tree's), not just racy.
     *
     * @return whether the key count is an estimate; this default says no
     */
    default boolean keyCountIsEstimate() {
        return false;
    }

    /**
     * Where this store's newest acknowledged write sits in a log that replicas copy: a replicated
     * store's log index, Redis's {@code master_repl_offset} after a write. A connection reads it as
     * its write is answered, to know what WAIT must wait for: the write's own index, or a later one
     * if other connections' writes were answered meanwhile (as Redis's offset counts theirs too).
     *
     * @return the log index, or -1 for a store without replicas (this default)
     */
    default long lastWriteIndex() {
        return -1;
    }

    /** Removes every key. */
    void clear();

    /**
     * Visits every key and value, for snapshots and reports. It sees every pair that was there for
     * the whole visit, and may or may not see pairs written during it (the weak consistency of a
     * concurrent map's iterator); a store that is not thread-safe must not be written meanwhile.
     *
     * @param action called once per pair, with the key and the value
     */
    void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action);
}
