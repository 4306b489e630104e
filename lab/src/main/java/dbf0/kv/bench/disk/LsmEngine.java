package dbf0.kv.bench.disk;

import dbf0.common.ByteSizes;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.lsm.LsmStats;
import dbf0.kv.storage.lsm.LsmStore;
import java.io.IOException;

/**
 * Type {@code lsm}: dbf0's LSM store, opened on the options as they are. Its figures come from
 * {@link LsmStore#stats()}: bytes written to its logs and tables, data blocks read from disk, and
 * the time its writers were slowed or stopped; its log's forces from {@link LsmStore#walStats()}.
 */
final class LsmEngine extends StoreEngine {

    private final LsmStore store;
    private final LsmOptions options;

    private LsmEngine(LsmStore store, LsmOptions options) {
        super(store);
        this.store = store;
        this.options = options;
    }

    /** Opens (or recovers) the store in the options' data directory. */
    static LsmEngine open(LsmOptions options) throws IOException {
        return new LsmEngine(LsmStore.open(options), options);
    }

    @Override
    public EngineCounters counters() {
        LsmStats s = store.stats();
        return new EngineCounters(
                s.walBytesWritten() + s.tableBytesWritten(),
                s.blocksRead(),
                s.stallNanos(),
                store.walStats().fsyncs());
    }

    @Override
    public String describe() {
        return "lsm: memtable "
                + ByteSizes.format(options.memtableBytes())
                + ", block cache "
                + ByteSizes.format(options.blockCacheBytes())
                + ", "
                + options.compaction().name().toLowerCase(java.util.Locale.ROOT)
                + " compaction, fsync "
                + options.fsync().cliName();
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
