package dbf0.kv.bench.disk;

import dbf0.common.ByteSizes;
import dbf0.kv.storage.lsm.CompactionStyle;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;

/**
 * Type {@code rocksdb}: RocksDB (through rocksdbjni) set up to match dbf0's LSM store option for
 * option, so that the harness compares engines and not settings. Each option is explained where it
 * is set. RocksDB's own defaults stay for everything dbf0 has no counterpart of (background jobs,
 * level sizes, the level-0 slowdown and stop triggers).
 */
final class RocksDbEngine implements DiskEngine {

    static {
        RocksDB.loadLibrary();
    }

    private final RocksDB db;
    private final Options options;
    private final WriteOptions writeOptions;
    private final Statistics statistics;
    private final LRUCache cache;
    private final BloomFilter bloom;
    private final ScheduledExecutorService syncTimer;
    private final String description;

    private RocksDbEngine(LsmOptions o) throws RocksDBException {
        statistics = new Statistics();
        // The same bound as dbf0's block cache; LRU as Caffeine approximates it.
        cache = new LRUCache(Math.max(o.blockCacheBytes(), 1));
        // About 10 bits per key, as dbf0's tables; false: the full-filter format, one per table.
        bloom = new BloomFilter(10, false);
        BlockBasedTableConfig table =
                new BlockBasedTableConfig()
                        .setBlockCache(cache)
                        .setFilterPolicy(bloom)
                        // dbf0's tables cut 4 KiB data blocks (RocksDB's default too).
                        .setBlockSize(4096);
        options =
                new Options()
                        .setCreateIfMissing(true)
                        // The memtable's size before it is flushed to a table: dbf0's memtable.
                        .setWriteBufferSize(o.memtableBytes())
                        // One memtable filling and one being flushed, as in dbf0.
                        .setMaxWriteBufferNumber(2)
                        // dbf0 does not compress; random values would not shrink anyway.
                        .setCompressionType(CompressionType.NO_COMPRESSION)
                        // Leveled is RocksDB's level style; tiered is its universal style.
                        .setCompactionStyle(
                                o.compaction() == CompactionStyle.TIERED
                                        ? org.rocksdb.CompactionStyle.UNIVERSAL
                                        : org.rocksdb.CompactionStyle.LEVEL)
                        // Tickers for bytes written, cache misses, stalls and WAL syncs.
                        .setStatistics(statistics)
                        .setTableFormatConfig(table);
        // The write-ahead log stays on (disableWAL false). always: every write waits for its
        // fsync, which RocksDB shares among concurrent writers (its group commit), as dbf0's log.
        writeOptions =
                new WriteOptions().setDisableWAL(false).setSync(o.fsync() == FsyncPolicy.ALWAYS);
        db = RocksDB.open(options, o.dataDir().toString());
        if (o.fsync() == FsyncPolicy.INTERVAL) {
            // interval: writes return after the write call, and a timer forces the log, as
            // dbf0's background force does. never: nothing forces it; the kernel writes it back.
            syncTimer =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "rocksdb-sync-wal");
                                t.setDaemon(true);
                                return t;
                            });
            long period = o.fsyncInterval().toNanos();
            syncTimer.scheduleAtFixedRate(this::syncWal, period, period, TimeUnit.NANOSECONDS);
        } else {
            syncTimer = null;
        }
        description =
                "rocksdb: memtable "
                        + ByteSizes.format(o.memtableBytes())
                        + " x2, LRU block cache "
                        + ByteSizes.format(o.blockCacheBytes())
                        + ", bloom 10 bits/key, 4 KiB blocks, no compression, "
                        + (o.compaction() == CompactionStyle.TIERED ? "universal" : "level")
                        + " compaction, fsync "
                        + o.fsync().cliName();
    }

    /** Opens (or creates) a RocksDB database in the options' data directory. */
    static RocksDbEngine open(LsmOptions options) throws IOException {
        try {
            return new RocksDbEngine(options);
        } catch (RocksDBException e) {
            throw new IOException("rocksdb: " + e.getMessage(), e);
        }
    }

    private void syncWal() {
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            System.err.println(
                    "dbf0 disk-bench: warning: rocksdb syncWal failed: " + e.getMessage());
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw new IOException("rocksdb put: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean get(byte[] key) throws IOException {
        try {
            return db.get(key) != null;
        } catch (RocksDBException e) {
            throw new IOException("rocksdb get: " + e.getMessage(), e);
        }
    }

    /**
     * RocksDB's delete does not say whether the key was there; dbf0's store does, and the 2020
     * benchmark counts deleteFound. So a delete here is a get and then a delete: the same lookup
     * dbf0's store makes.
     */
    @Override
    public boolean delete(byte[] key) throws IOException {
        try {
            boolean found = db.get(key) != null;
            db.delete(writeOptions, key);
            return found;
        } catch (RocksDBException e) {
            throw new IOException("rocksdb delete: " + e.getMessage(), e);
        }
    }

    @Override
    public EngineCounters counters() {
        long written =
                statistics.getTickerCount(TickerType.WAL_FILE_BYTES)
                        + statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES)
                        + statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
        return new EngineCounters(
                written,
                // data blocks the block cache did not hold, so read from the table file (which
                // the kernel's page cache may still serve). Unlike dbf0's blocksRead it also
                // counts compaction's reads: under a write-heavy mix it overstates read_amp.
                statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS),
                statistics.getTickerCount(TickerType.STALL_MICROS) * 1000,
                statistics.getTickerCount(TickerType.WAL_FILE_SYNCED));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        if (syncTimer != null) {
            syncTimer.shutdownNow();
            try {
                syncTimer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        db.close();
        writeOptions.close();
        options.close();
        statistics.close();
        bloom.close();
        cache.close();
    }
}
