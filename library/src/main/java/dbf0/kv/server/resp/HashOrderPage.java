package dbf0.kv.server.resp;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.storage.Store;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One page of SCAN: the keys of any store in one fixed order, the order of a keyed 64-bit hash of
 * the key (ties broken by the key), resumed from a cursor that is just a hash value. The cursor
 * {@code c} means "the keys whose hash is at least c", so it needs no state on the server and works
 * over hash maps, which have no order of their own to resume from.
 *
 * <p>Redis's guarantee follows: a key present from the first call to the last has one hash, the
 * cursors only grow, and each page returns every matching key of its hash interval, so the key is
 * returned. A key written or removed meanwhile may or may not be. A page never splits the keys of
 * one hash between two pages.
 *
 * <p>The cost, honestly: every call walks the whole store ({@link Store#forEach}) and keeps the
 * smallest {@code count} hashes in a bounded heap: O(n log count) per call, so a full iteration in
 * pages of c keys costs O(n²/c). Redis pays O(count) per call instead: its cursor is a position in
 * its own hash table, its bucket index with the bits reversed, so that a table that grows or
 * shrinks between calls still visits every old bucket. dbf0 cannot borrow a map's buckets ({@code
 * ConcurrentHashMap} shows none), hence the walk. For keys in order, use v2's RANGE.
 *
 * <p>The hash is SipHash-2-4 under a key drawn at start-up, as Redis seeds its own hash: a client
 * cannot pick keys that collide. So cursors are good within one server process only.
 *
 * <p>Memory per call: the heap holds at most {@code count} keys and at most {@code maxBytes} of
 * reply, whatever the store's size.
 */
final class HashOrderPage {

    private static final HashFunction HASH = seeded();

    private static HashFunction seeded() {
        SecureRandom random = new SecureRandom();
        return Hashing.sipHash24(random.nextLong(), random.nextLong());
    }

    private record Entry(long hash, ByteArrayWrapper key) {}

    private static final Comparator<Entry> ORDER =
            Comparator.<Entry>comparingLong(e -> e.hash() ^ Long.MIN_VALUE) // unsigned
                    .thenComparing(Entry::key);

    /** The keys of the page in order, and the cursor to go on with: 0 when nothing is left. */
    record Page(List<byte[]> keys, long next) {}

    private HashOrderPage() {}

    static long hash(ByteArrayWrapper key) {
        return HASH.hashBytes(key.getArray()).asLong();
    }

    /**
     * The page that starts at {@code cursor}.
     *
     * @param match the pattern keys must match, or null for all
     * @param count the most keys in the page, at least 1 (a page of one hash's keys may pass it)
     * @param maxBytes the most reply bytes its keys may take, as bulk strings (passed only by a
     *     page of one key, or of one hash's keys)
     */
    static Page read(Store store, long cursor, KeyGlob match, int count, long maxBytes) {
        Selection selection = new Selection(cursor, match, count, maxBytes);
        store.forEach((key, value) -> selection.offer(key));
        return selection.page(store);
    }

    /** The bounded heap: the largest kept entry on top, thrown out first. */
    private static final class Selection {
        final long cursor;
        final KeyGlob match;
        final int count;
        final long maxBytes;
        final PriorityQueue<Entry> kept = new PriorityQueue<>(ORDER.reversed());
        long keptBytes;
        boolean dropped;
        long minDropped; // the smallest hash thrown out, unsigned; meaningful once dropped

        Selection(long cursor, KeyGlob match, int count, long maxBytes) {
            this.cursor = cursor;
            this.match = match;
            this.count = count;
            this.maxBytes = maxBytes;
        }

        void offer(ByteArrayWrapper key) {
            long hash = hash(key);
            if (Long.compareUnsigned(hash, cursor) < 0
                    || (match != null && !match.matches(key.getArray()))) {
                return;
            }
            Entry entry = new Entry(hash, key);
            if (kept.size() == count && ORDER.compare(entry, kept.peek()) > 0) {
                drop(hash);
                return;
            }
            kept.add(entry);
            keptBytes += RespCodec.bulkSize(key.getArray());
            while (kept.size() > count || (keptBytes > maxBytes && kept.size() > 1)) {
                Entry out = kept.poll();
                keptBytes -= RespCodec.bulkSize(out.key().getArray());
                drop(out.hash());
            }
        }

        private void drop(long hash) {
            if (!dropped || Long.compareUnsigned(hash, minDropped) < 0) {
                minDropped = hash;
            }
            dropped = true;
        }

        Page page(Store store) {
            List<Entry> sorted = new ArrayList<>(kept);
            sorted.sort(ORDER);
            if (!dropped) {
                return new Page(keys(sorted), 0);
            }
            // Every kept entry sorts before every dropped one; those sharing the smallest dropped
            // hash wait for the next page, which starts at that hash.
            List<Entry> before =
                    sorted.stream()
                            .filter(e -> Long.compareUnsigned(e.hash(), minDropped) < 0)
                            .toList();
            if (!before.isEmpty()) {
                return new Page(keys(before), minDropped);
            }
            // All kept keys share one hash with more beyond the bound: a SipHash collision of
            // more keys than fit a page. Return the whole group; the next page starts after it
            // (the cursor wraps to 0, "done", only past the largest hash, where nothing is left).
            List<byte[]> group = new ArrayList<>();
            long hash = minDropped;
            store.forEach(
                    (key, value) -> {
                        if (hash(key) == hash && (match == null || match.matches(key.getArray()))) {
                            group.add(key.getArray());
                        }
                    });
            return new Page(group, hash + 1);
        }

        private static List<byte[]> keys(List<Entry> entries) {
            return entries.stream().map(e -> e.key().getArray()).toList();
        }
    }
}
