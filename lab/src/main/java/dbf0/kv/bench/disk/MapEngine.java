package dbf0.kv.bench.disk;

import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalStats;
import dbf0.kv.storage.wal.WalStore;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Type {@code map}: dbf0's in-memory ConcurrentHashMap behind its write-ahead log ({@link
 * WalStore}), for scale. Every byte it writes is the log's; it reads no blocks and never stalls.
 * Automatic log rewrites are off, so the log's size is exactly the bytes written. It holds every
 * value in the heap: a key space larger than the heap does not fit.
 */
final class MapEngine extends StoreEngine {

    private final WalStore store;

    private MapEngine(WalStore store) {
        super(store);
        this.store = store;
    }

    /** Opens (or recovers) the log in the options' data directory with their fsync policy. */
    static MapEngine open(LsmOptions options) throws IOException {
        WalOptions wal =
                WalOptions.defaults(options.dataDir())
                        .withFsync(options.fsync())
                        .withFsyncInterval(options.fsyncInterval())
                        .withRewrite(0, WalOptions.DEFAULT_REWRITE_MIN_BYTES);
        return new MapEngine(WalStore.open(new MapStore(new ConcurrentHashMap<>()), wal));
    }

    @Override
    public EngineCounters counters() {
        WalStats s = store.stats();
        return new EngineCounters(s.logBytes(), -1, 0, s.fsyncs());
    }

    @Override
    public String describe() {
        return "map: ConcurrentHashMap with dbf0's write-ahead log, fsync "
                + store.options().fsync().cliName();
    }

    @Override
    public void close() {
        store.close();
    }
}
