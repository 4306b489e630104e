package dbf0.kv.workload;

import java.util.Random;

/**
 * Picks which record an operation touches, as an index into a {@link KeySpace}: 0 is the first
 * record loaded, higher indexes are later records and then inserts. One instance per load thread:
 * implementations keep per-thread state (Zipfian's cached zeta) and are not thread-safe.
 */
public interface KeyChooser {

    /** The next record index, in {@code [0, keySpace.count())}. */
    long next(Random random);
}
