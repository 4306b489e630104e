package dbf0.kv.storage.lsm;

import java.util.function.IntPredicate;

/**
 * The one binary search the LSM needs, over anything sorted by key: the entries of a block, the
 * blocks of a table, the tables of a sorted run. Each asks the same question, "the first position
 * whose key is at least this one", and only the way of comparing position {@code i} differs, so the
 * caller passes that as {@code before}.
 */
final class LowerBound {

    private LowerBound() {}

    /**
     * The first index in {@code [0, size)} at which {@code before} is false; {@code size} if none.
     * {@code before} must be true for a prefix of the indexes and false for the rest, as "the key
     * at {@code i} sorts before the one sought" is for sorted keys.
     */
    static int of(int size, IntPredicate before) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1; // unsigned shift: no overflow even if lo + hi passes 2^31
            if (before.test(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
