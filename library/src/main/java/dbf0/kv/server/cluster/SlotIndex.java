package dbf0.kv.server.cluster;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.storage.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Which keys each hash slot holds, so that COUNTKEYSINSLOT, GETKEYSINSLOT and SETSLOT NODE cost the
 * keys of one slot rather than a walk of the whole store. Redis keeps the same index for the same
 * reason: a reshard asks for a slot's keys ten at a time, over and over.
 *
 * <p>It is a superset: every key the store holds is in it, and so may be a few the store no longer
 * holds. Readers check each candidate against the store. Why not exact: under a write-ahead log a
 * write is applied only when its batch is flushed, and two event loops' batches may be applied in
 * either order, so the order in which writes are submitted here is not the order in which they
 * land. A key is therefore added when its put is submitted, and taken out only by {@link #prune},
 * which removes a key when the store lacks it <em>and</em> every put of it submitted so far is done
 * (a done put has been applied): with the slot's lock held no new put can be submitted, so the key
 * cannot come back without being added again.
 *
 * <p>Each key keeps the future of its last put (of all its puts in flight, combined, if several
 * are); a put already done when submitted, as over a map, keeps a shared constant. Deletes touch
 * nothing but a counter: once a slot has seen more deletes than half its candidates (plus a few),
 * the deleting thread prunes it. So candidates that are gone number at most about as many as the
 * keys held, plus {@value #SLACK} per slot.
 *
 * <p>Memory, per key held: a hash map node and its table slot, about 40 bytes (over a map,
 * 1,000,000 keys took 42 MB more heap with the index than without). Under a log add the last put's
 * future, about 24 bytes, until a read or a prune of its slot drops it. The key object is the one
 * the store keeps, except in the LSM store once it has flushed its memtable: then add the key
 * (about 32 bytes and its length). 16,384 empty maps cost about 2 MB. Locks: {@value #STRIPES}, by
 * slot, as {@link ClusterState}'s.
 */
final class SlotIndex {

    /** Deletes a slot may see beyond half its candidates before it is pruned. */
    static final int SLACK = 8;

    private static final int STRIPES = ClusterState.STRIPES;
    private static final CompletableFuture<Boolean> DONE = CompletableFuture.completedFuture(true);

    /** One slot's candidates, each with its puts still in flight; guarded by its stripe. */
    private static final class Slot {
        final HashMap<ByteArrayWrapper, CompletableFuture<?>> keys = new HashMap<>();
        int deletes;
    }

    private final Store store;
    private final Slot[] slots = new Slot[HashSlots.SLOTS];
    private final Object[] stripes = new Object[STRIPES];

    /** An empty index over {@code store}, through which it submits the puts it indexes. */
    SlotIndex(Store store) {
        this.store = store;
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    /** Adds every key the store holds now: one walk, before any connection is accepted. */
    long build() {
        long[] n = {0};
        store.forEach(
                (key, value) -> {
                    int slot = HashSlots.slot(key.getArray());
                    synchronized (stripes[slot % STRIPES]) {
                        slots[slot].keys.put(key, DONE);
                    }
                    n[0]++;
                });
        return n[0];
    }

    /**
     * Adds {@code key} and submits its put to the store, under the slot's lock: a prune can then
     * never fall between the two.
     */
    CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        int slot = HashSlots.slot(key.getArray());
        synchronized (stripes[slot % STRIPES]) {
            CompletableFuture<Boolean> put = store.putAsync(key, value);
            added(slots[slot].keys, key, put);
            return put;
        }
    }

    /**
     * A put that blocks until done: the key is added with a future of its own, completed once the
     * put returns, so that the lock is not held while the put waits for a disk.
     */
    void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        int slot = HashSlots.slot(key.getArray());
        CompletableFuture<Boolean> put = new CompletableFuture<>();
        synchronized (stripes[slot % STRIPES]) {
            added(slots[slot].keys, key, put);
        }
        try {
            store.put(key, value);
        } finally {
            put.complete(true);
        }
    }

    private static void added(
            Map<ByteArrayWrapper, CompletableFuture<?>> keys,
            ByteArrayWrapper key,
            CompletableFuture<Boolean> put) {
        CompletableFuture<?> earlier = keys.put(key, put.isDone() ? DONE : put);
        if (earlier != null && !earlier.isDone() && !put.isDone()) {
            keys.put(key, CompletableFuture.allOf(earlier, put)); // two puts of one key in flight
        }
    }

    /** Counts a delete of {@code key} (submitted or not); prunes the slot when it has seen many. */
    void deleted(ByteArrayWrapper key) {
        int slot = HashSlots.slot(key.getArray());
        synchronized (stripes[slot % STRIPES]) {
            Slot s = slots[slot];
            if (++s.deletes > SLACK + s.keys.size() / 2) {
                prune(s);
            }
        }
    }

    /** After a clear: prunes every slot, one stripe at a time. */
    void cleared() {
        for (int slot = 0; slot < slots.length; slot++) {
            synchronized (stripes[slot % STRIPES]) {
                prune(slots[slot]);
            }
        }
    }

    /** Removes the candidates the store lacks whose puts are all done; the stripe is held. */
    private void prune(Slot s) {
        Iterator<Map.Entry<ByteArrayWrapper, CompletableFuture<?>>> it =
                s.keys.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<ByteArrayWrapper, CompletableFuture<?>> e = it.next();
            if (e.getValue().isDone() && !store.contains(e.getKey())) {
                it.remove();
            } else if (e.getValue() != DONE && e.getValue().isDone()) {
                e.setValue(DONE); // the put's future need not be kept any more
            }
        }
        s.deletes = 0;
    }

    /**
     * At most {@code count} keys of {@code slot} that the store holds now: the candidates are taken
     * under the lock, then checked against the store without it.
     */
    List<byte[]> keys(int slot, int count) {
        List<ByteArrayWrapper> candidates = new ArrayList<>();
        synchronized (stripes[slot % STRIPES]) {
            for (Map.Entry<ByteArrayWrapper, CompletableFuture<?>> e :
                    slots[slot].keys.entrySet()) {
                candidates.add(e.getKey());
                if (e.getValue() != DONE && e.getValue().isDone()) {
                    e.setValue(DONE); // the put's future need not be kept any more
                }
            }
        }
        List<byte[]> found = new ArrayList<>();
        for (int i = 0; i < candidates.size() && found.size() < count; i++) {
            if (store.contains(candidates.get(i))) {
                found.add(candidates.get(i).getArray());
            }
        }
        return found;
    }

    /** How many candidates {@code slot} has, held or not: for tests of the bound. */
    int candidates(int slot) {
        synchronized (stripes[slot % STRIPES]) {
            return slots[slot].keys.size();
        }
    }

    /** How many keys of {@code slot} the store holds now. */
    long count(int slot) {
        return keys(slot, Integer.MAX_VALUE).size();
    }
}
