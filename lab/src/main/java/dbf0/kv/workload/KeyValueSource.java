package dbf0.kv.workload;

import dbf0.common.ByteArrayWrapper;

/**
 * Where a load generator gets its keys and values. Implementations may reuse one buffer for every
 * key they return (the seed does, to avoid garbage): copy a key before keeping it.
 */
public interface KeyValueSource {

    /** The next key; valid until the next call. */
    ByteArrayWrapper nextKey();

    /** The value to store for {@code key}; valid until the next call. */
    ByteArrayWrapper valueFor(ByteArrayWrapper key);
}
