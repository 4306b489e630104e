package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;

/**
 * A {@link KvIterator} that works out its current entry once, when it moves, and keeps it: the key
 * and cell are then read as often as a merge likes (a heap compares them on every step) at the cost
 * of a field read. A subclass moves and calls {@link #at}; a null key means past the end.
 */
abstract class CursorIterator implements KvIterator {

    private ByteArrayWrapper key;
    private Cell cell;

    /** Records the entry the iterator now stands on, or {@code (null, null)} past the end. */
    final void at(ByteArrayWrapper key, Cell cell) {
        this.key = key;
        this.cell = cell;
    }

    @Override
    public final boolean valid() {
        return key != null;
    }

    @Override
    public final ByteArrayWrapper key() {
        return key;
    }

    @Override
    public final Cell cell() {
        return cell;
    }
}
