package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * A {@link Store} over any {@link Map}: each call is one call on the map, so the store is exactly
 * as thread-safe (or unsafe) as the map, and adds no locking of its own.
 *
 * <p>A {@link SortedMap} in the keys' natural order ({@link ByteArrayWrapper#compareTo}, unsigned
 * bytes) is {@link #ordered()} and answers {@link #scan} from its sub-map view; a hash map cannot.
 */
public final class MapStore implements Store {

    private final Map<ByteArrayWrapper, ByteArrayWrapper> map;

    /** The map, when it keeps its keys in their natural order; otherwise null. */
    private final SortedMap<ByteArrayWrapper, ByteArrayWrapper> sorted;

    /**
     * See {@link #largestValueBytes()}; only ever raised, and before the value it allows is stored.
     */
    private final AtomicLong largestValue = new AtomicLong();

    /**
     * A store whose every call goes to {@code map}.
     *
     * @param map the map, not null; kept, not copied
     */
    public MapStore(Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        this.map = Objects.requireNonNull(map, "map");
        // a comparator of its own could order keys some other way than scan promises
        this.sorted =
                map instanceof SortedMap<ByteArrayWrapper, ByteArrayWrapper> s
                                && s.comparator() == null
                        ? s
                        : null;
        // a map filled before it was wrapped (the benchmark's load phase) is measured once here
        map.values().forEach(value -> raiseLargest(value.length()));
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return map.get(key);
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        raiseLargest(value.length());
        map.put(key, value);
    }

    private void raiseLargest(long length) {
        if (length > largestValue.get()) { // almost always false: one volatile read per put
            largestValue.accumulateAndGet(length, Math::max);
        }
    }

    /**
     * The longest value ever put through this store, or found in the map when it was wrapped.
     * Writes made to the map directly, behind the store's back, are not seen.
     */
    @Override
    public long largestValueBytes() {
        return largestValue.get();
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        return map.remove(key) != null;
    }

    /**
     * A map's put is done when the call returns, so every successful put answers the same completed
     * future: nothing to allocate per write. A completed future is never completed again, so
     * sharing it between callers and threads is safe.
     */
    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        try {
            put(key, value);
            return DONE_TRUE;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** As {@link #putAsync}: one shared completed future for each answer. */
    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        try {
            return delete(key) ? DONE_TRUE : DONE_FALSE;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static final CompletableFuture<Boolean> DONE_TRUE =
            CompletableFuture.completedFuture(Boolean.TRUE);
    private static final CompletableFuture<Boolean> DONE_FALSE =
            CompletableFuture.completedFuture(Boolean.FALSE);

    /** True over a sorted map in the keys' natural order ({@code skiplist}, {@code treemap}). */
    @Override
    public boolean ordered() {
        return sorted != null;
    }

    /**
     * The sorted map's sub-map view, read in order until {@code limit} pairs: as consistent as the
     * map's own iterator (weakly consistent for a {@code ConcurrentSkipListMap}; a {@code TreeMap}
     * must not be written meanwhile).
     */
    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        if (sorted == null) {
            return Store.super.scan(from, toExclusive, limit); // the interface's clear refusal
        }
        if (limit < 1) {
            throw new IllegalArgumentException("scan limit must be at least 1, got " + limit);
        }
        if (from != null && toExclusive != null && from.compareTo(toExclusive) >= 0) {
            return List.of(); // a sub-map view would throw for from > to
        }
        SortedMap<ByteArrayWrapper, ByteArrayWrapper> range =
                from == null
                        ? (toExclusive == null ? sorted : sorted.headMap(toExclusive))
                        : (toExclusive == null
                                ? sorted.tailMap(from)
                                : sorted.subMap(from, toExclusive));
        List<KeyValue> pairs = new ArrayList<>(Math.min(limit, 64));
        for (Map.Entry<ByteArrayWrapper, ByteArrayWrapper> entry : range.entrySet()) {
            pairs.add(new KeyValue(entry.getKey(), entry.getValue()));
            if (pairs.size() == limit) {
                break;
            }
        }
        return pairs;
    }

    @Override
    public boolean contains(ByteArrayWrapper key) {
        return map.containsKey(key);
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

    /** The map's class, e.g. {@code ConcurrentHashMap}, for reports. */
    @Override
    public String toString() {
        return "MapStore(" + map.getClass().getName() + ")";
    }
}
