package dbf0.kv.storage.btree;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The tree as the write-ahead log sees it: the store the log applies each record to once it is
 * written (and replays into at start-up). A change that fails half-way (a page that cannot be read,
 * a corrupt page met on the way) leaves the tree in memory in doubt, so from then on every change
 * is refused until a restart replays the log into the file's tree; reads go on.
 */
final class Applier implements Store {

    private final BTree tree;

    /** Set by a change that failed; later changes fail with it. */
    volatile StorageFailureException broken;

    /** Called after each change, during replay only (a checkpoint when the pool fills). */
    private final Runnable afterChange;

    Applier(BTree tree, Runnable afterChange) {
        this.tree = tree;
        this.afterChange = afterChange;
    }

    private void usable() {
        StorageFailureException b = broken;
        if (b != null) {
            throw b;
        }
    }

    private StorageFailureException failed(RuntimeException e) {
        StorageFailureException b =
                new StorageFailureException(
                        "a change to the B+tree failed half-way ("
                                + e.getMessage()
                                + "); changes are refused until restart, reads go on",
                        e);
        broken = b;
        return b;
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return tree.get(key.getArray());
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        usable();
        try {
            tree.put(key.getArray(), value.getArray());
        } catch (RuntimeException e) {
            throw failed(e);
        }
        afterChange.run();
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        usable();
        boolean found;
        try {
            found = tree.delete(key.getArray());
        } catch (RuntimeException e) {
            throw failed(e);
        }
        afterChange.run();
        return found;
    }

    @Override
    public void clear() {
        usable();
        try {
            tree.clear();
        } catch (RuntimeException e) {
            throw failed(e);
        }
        afterChange.run();
    }

    @Override
    public long largestValueBytes() {
        return tree.largestValue.get();
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        return tree.scan(
                from == null ? null : from.getArray(),
                toExclusive == null ? null : toExclusive.getArray(),
                limit);
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, tree.keys.get());
    }

    /** Every pair, a batch of keys at a time: no latch is held while {@code action} runs. */
    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        byte[] from = null;
        while (true) {
            List<KeyValue> batch = tree.scan(from, null, 1024);
            for (KeyValue kv : batch) {
                action.accept(kv.key(), kv.value());
            }
            if (batch.size() < 1024) {
                return;
            }
            byte[] last = batch.get(batch.size() - 1).key().getArray();
            from = java.util.Arrays.copyOf(last, last.length + 1); // the next key after it
        }
    }
}
