package dbf0.kv.server.cluster;

import dbf0.kv.storage.CheckpointedStore;
import dbf0.kv.storage.LogPosition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@link IndexedStore} of a store that keeps checkpoints for its owner's log (a replicated
 * shard's LSM store): its positions and checkpoints pass straight through, and a restore, which
 * replaces every key at once without a write passing the index, is followed by a new index: every
 * key the store now holds added, then every slot pruned of the keys it no longer holds.
 */
final class IndexedCheckpointedStore extends IndexedStore implements CheckpointedStore {

    private final CheckpointedStore store;
    private final SlotIndex index;

    IndexedCheckpointedStore(CheckpointedStore store, SlotIndex index) {
        super(store, index);
        this.store = store;
        this.index = index;
    }

    @Override
    public LogPosition applied() {
        return store.applied();
    }

    @Override
    public void markApplied(LogPosition at) throws IOException {
        store.markApplied(at);
    }

    @Override
    public List<Path> checkpoint(Path dir, LogPosition at) throws IOException {
        return store.checkpoint(dir, at);
    }

    @Override
    public LogPosition positionOf(Path dir) throws IOException {
        return store.positionOf(dir);
    }

    @Override
    public LogPosition restore(Path dir) throws IOException {
        LogPosition at = store.restore(dir);
        index.build();
        index.cleared();
        return at;
    }
}
