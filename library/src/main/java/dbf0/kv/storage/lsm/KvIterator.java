package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;

/**
 * A cursor over cells in ascending key order, one version per key: the shape every source of a read
 * has (a memtable, a table, a merge of them), so that reads and compactions combine them freely.
 * Positioned on its first entry when made; {@link #valid} is false past the end.
 */
interface KvIterator {

    boolean valid();

    /** The current key; only while {@link #valid}. */
    ByteArrayWrapper key();

    /** The current key's cell; only while {@link #valid}. */
    Cell cell();

    /** Moves to the next key. */
    void next();
}
