package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.util.Iterator;
import java.util.Map;

/** A {@link KvIterator} over a memtable, from a key on; weakly consistent like its skip list. */
final class MemtableIterator implements KvIterator {

    private final Iterator<Map.Entry<ByteArrayWrapper, Cell>> entries;
    private Map.Entry<ByteArrayWrapper, Cell> current;

    MemtableIterator(Memtable memtable, ByteArrayWrapper from) {
        this.entries = memtable.from(from);
        next();
    }

    @Override
    public boolean valid() {
        return current != null;
    }

    @Override
    public ByteArrayWrapper key() {
        return current.getKey();
    }

    @Override
    public Cell cell() {
        return current.getValue();
    }

    @Override
    public void next() {
        current = entries.hasNext() ? entries.next() : null;
    }
}
