package dbf0.kv.bench.disk;

import dbf0.common.ByteSizes;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.btree.BTreeStats;
import dbf0.kv.storage.btree.BTreeStore;
import dbf0.kv.storage.lsm.LsmOptions;
import java.io.IOException;

/**
 * Type {@code btree}: dbf0's B+tree store, its buffer pool sized by --block-cache (the memory every
 * engine here gets for the pages it caches) and its pages by --page-size. The fsync policies are
 * its write-ahead log's, as for {@code lsm} and {@code map}: {@code always} forces the log before a
 * write returns (group commit shares a force among concurrent writers), {@code interval} on a
 * timer, {@code never} leaves it to the operating system. A checkpoint forces the tree's file
 * whatever the policy; those forces are not the log's and are not counted as fsyncs.
 *
 * <p>Its figures come from {@link BTreeStore#stats()}: the bytes of its logs plus each checkpointed
 * page twice (the double-write file, then in place), and pages read from the file (pool misses);
 * the time writers waited for a checkpoint to free the pool is not measured, so stalls read 0.
 */
final class BTreeEngine extends StoreEngine {

    private final BTreeStore store;

    private BTreeEngine(BTreeStore store) {
        super(store);
        this.store = store;
    }

    /** Opens (or recovers) the store in the options' data directory. */
    static BTreeEngine open(LsmOptions options, int pageSize) throws IOException {
        BTreeOptions o =
                BTreeOptions.defaults(options.dataDir())
                        .withPageSize(pageSize)
                        .withBufferPoolBytes(options.blockCacheBytes())
                        .withFsync(options.fsync())
                        .withFsyncInterval(options.fsyncInterval());
        return new BTreeEngine(BTreeStore.open(o));
    }

    @Override
    public EngineCounters counters() {
        BTreeStats s = store.stats();
        return new EngineCounters(s.bytesWritten(), s.reads(), 0, store.walStats().fsyncs());
    }

    @Override
    public String describe() {
        BTreeOptions o = store.options();
        return "btree: "
                + ByteSizes.format(store.stats().pageSize())
                + " pages, buffer pool "
                + ByteSizes.format(o.bufferPoolBytes())
                + ", checkpoint every "
                + ByteSizes.format(o.checkpointLogBytes())
                + " of log or a quarter of the pool dirty, fsync "
                + o.fsync().cliName();
    }

    @Override
    public void close() {
        store.close();
    }
}
