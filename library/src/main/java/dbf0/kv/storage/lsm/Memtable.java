package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.LogPosition;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The newest writes, in memory and in key order: a concurrent skip list, so readers never wait for
 * the writer and a flush reads it in order without sorting. Each memtable has its own write-ahead
 * log, {@link #logNumber}; once the memtable is in a table, that log is deleted.
 *
 * <p>Writes come from one thread at a time (they are applied under the log's lock, in log order),
 * so the counters below are plain volatile fields; reads come from anywhere.
 */
final class Memtable {

    /**
     * Bytes charged per entry besides key and value: the skip-list node, its index levels, the
     * wrapper objects and the cell, roughly, on a 64-bit JVM with compressed pointers.
     */
    static final int ENTRY_OVERHEAD = 96;

    final long logNumber;
    private final ConcurrentSkipListMap<ByteArrayWrapper, Cell> map = new ConcurrentSkipListMap<>();

    /**
     * A bloom filter of the keys added, so that a get of an absent key (most gets, in a large
     * store) skips the skip list's walk of cache misses. Sized for the most entries the memtable
     * can hold. Bits are set before the entry is put in the map; plain fields suffice, since a get
     * that must see a put is ordered after it by whatever told it the put was done.
     */
    private final long[] filter;

    private volatile long bytes;
    private volatile long maxSeq;
    private volatile long clearSeq;
    private volatile int largestValue;

    /**
     * The keys this memtable adds to the store less those it removes: for each key its newest cell
     * here, counted as {@link KeyEstimate#counted} says.
     */
    private volatile long keyDelta;

    /**
     * Where the owner's log stood after the last write here ({@link LsmStore#markApplied}), or
     * null: what the manifest records once this memtable is a table.
     */
    private volatile LogPosition applied;

    Memtable(long logNumber, long capacityBytes) {
        this.logNumber = logNumber;
        long entries = Math.max(1024, capacityBytes / ENTRY_OVERHEAD);
        this.filter = new long[(int) Math.min(1 << 21, (entries * Bloom.BITS_PER_KEY + 63) / 64)];
    }

    private static int probe(long hash, int i, long bits) {
        return (int) (Integer.toUnsignedLong((int) hash + i * (int) (hash >>> 32)) % bits);
    }

    private boolean mightContain(long hash) {
        long bits = 64L * filter.length;
        for (int i = 0; i < 4; i++) {
            int bit = probe(hash, i, bits);
            if ((filter[bit >>> 6] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds a version of {@code key}; the caller holds the log's lock, and then counts it ({@link
     * #count}).
     *
     * @param hash the key's {@link Bloom#hash}
     * @return the version it replaces here, or null if the key is new to this memtable
     */
    Cell add(ByteArrayWrapper key, long hash, Cell cell) {
        long bits = 64L * filter.length;
        for (int i = 0; i < 4; i++) {
            int bit = probe(hash, i, bits);
            filter[bit >>> 6] |= 1L << bit;
        }
        Cell was = map.put(key, cell);
        // Charged in full even when it replaces a version: a bound, not a measure.
        bytes += key.length() + cell.valueLength() + ENTRY_OVERHEAD;
        maxSeq = cell.seq();
        if (cell.valueLength() > largestValue) {
            largestValue = cell.valueLength();
        }
        return was;
    }

    /**
     * Counts a cell just added in {@link #keyDelta}, under the log's lock.
     *
     * @param was the cell it replaced here, or null
     * @param below what the older sources (the memtable being flushed, the tables) hold of the key:
     *     needed only for a key new here, since a cell that replaces another here changes the count
     *     the same whatever lies below (a put over a tombstone adds 1, the reverse removes 1)
     */
    void count(Cell cell, Cell was, KeyEstimate.Below below) {
        if (was == null) {
            keyDelta += KeyEstimate.counted(cell, below);
        } else if (was.isTombstone() != cell.isTombstone()) {
            keyDelta += cell.isTombstone() ? -1 : 1;
        }
    }

    /**
     * Records a clear at {@code seq}: everything older, here and in tables, is gone. The caller
     * holds the log's lock and raises the store's floor first, so readers never see half of it.
     */
    void clear(long seq) {
        map.clear();
        keyDelta = 0;
        clearSeq = seq;
        maxSeq = seq;
    }

    Cell get(ByteArrayWrapper key) {
        return map.get(key);
    }

    /** {@link #get}, asking the filter first; {@code hash} is the key's {@link Bloom#hash}. */
    Cell get(ByteArrayWrapper key, long hash) {
        return mightContain(hash) ? map.get(key) : null;
    }

    /** The entries with {@code from <= key}, or all when {@code from} is null, in order. */
    Iterator<Map.Entry<ByteArrayWrapper, Cell>> from(ByteArrayWrapper from) {
        NavigableMap<ByteArrayWrapper, Cell> view = from == null ? map : map.tailMap(from, true);
        return view.entrySet().iterator();
    }

    boolean isEmpty() {
        return map.isEmpty();
    }

    int entries() {
        return map.size();
    }

    /** Approximate memory held: keys, values and per-entry overhead, never less than real. */
    long bytes() {
        return bytes;
    }

    long maxSeq() {
        return maxSeq;
    }

    /** The sequence number of the last clear applied here, or 0. */
    long clearSeq() {
        return clearSeq;
    }

    int largestValue() {
        return largestValue;
    }

    /** The keys this memtable adds to the store less those it removes, estimated. */
    long keyDelta() {
        return keyDelta;
    }

    LogPosition applied() {
        return applied;
    }

    void applied(LogPosition position) {
        applied = position;
    }
}
