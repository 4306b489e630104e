package dbf0.kv.check;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The memo: every (set of linearized operations, model state) pair reached. Open addressing over
 * parallel arrays (each set's words, its state, the pair's hash), so that remembering a pair costs
 * one array rather than four objects, and growing rehashes from the stored hashes. On Porcupine's
 * kv histories (many concurrent appends) a {@code HashSet} of pairs made the search a third slower.
 */
final class Memo<S> {
    private final Model<S, ?, ?> model;
    private long[][] words = new long[64][];
    private Object[] states = new Object[64];
    private int[] hashes = new int[64];
    private int size;

    Memo(Model<S, ?, ?> model) {
        this.model = model;
    }

    /** Adds ({@code set}, {@code state}), copying the set; false if it was there already. */
    boolean add(BitSet set, S state) {
        long[] w = set.toLongArray();
        int h = 31 * Arrays.hashCode(w) + model.stateHash(state);
        h ^= h >>> 16;
        int mask = hashes.length - 1;
        int i = h & mask;
        for (; words[i] != null; i = (i + 1) & mask) {
            if (hashes[i] == h
                    && Arrays.equals(words[i], w)
                    && model.stateEquals(cast(states[i]), state)) {
                return false;
            }
        }
        words[i] = w;
        states[i] = state;
        hashes[i] = h;
        if (++size * 2 > hashes.length) {
            grow();
        }
        return true;
    }

    /** Doubles the table, keeping it at most half full. */
    private void grow() {
        long[][] oldWords = words;
        Object[] oldStates = states;
        int[] oldHashes = hashes;
        int n = oldHashes.length * 2;
        int mask = n - 1;
        words = new long[n][];
        states = new Object[n];
        hashes = new int[n];
        for (int j = 0; j < oldHashes.length; j++) {
            if (oldWords[j] != null) {
                int i = oldHashes[j] & mask;
                while (words[i] != null) {
                    i = (i + 1) & mask;
                }
                words[i] = oldWords[j];
                states[i] = oldStates[j];
                hashes[i] = oldHashes[j];
            }
        }
    }

    @SuppressWarnings("unchecked")
    private S cast(Object s) {
        return (S) s;
    }
}
