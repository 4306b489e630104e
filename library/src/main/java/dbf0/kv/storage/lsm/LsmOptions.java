package dbf0.kv.storage.lsm;

import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link LsmStore} keeps its data. Build from {@link #defaults} and the {@code with}
 * methods.
 *
 * @param dataDir the directory of the store's logs, tables and manifest, and nothing else
 * @param memtableBytes how large the memtable grows before it is written to a table; the store
 *     holds at most two (one filling, one being written), so this bounds its write memory
 * @param blockCacheBytes the bound of the cache of data blocks read from tables
 * @param fsync when the write-ahead log is forced to disk
 * @param fsyncInterval the period of the background force under {@link FsyncPolicy#INTERVAL}
 * @param compaction how tables are merged
 * @param tuning the finer knobs ({@link LsmTuning#DEFAULTS})
 * @param ownLog true (the default): writes go to the store's own write-ahead log first, and a
 *     restart replays it. False: the store has no log; its owner's log is one (a replicated shard's
 *     Raft log). Writes then go straight to the memtable, only tables are durable, and the owner
 *     marks which of its entries the writes so far came from ({@link LsmStore#markApplied}): the
 *     manifest records that position with every table set, and the owner replays its log from the
 *     entry after it. {@link #fsync} and {@link #fsyncInterval} then apply to nothing.
 */
public record LsmOptions(
        Path dataDir,
        long memtableBytes,
        long blockCacheBytes,
        FsyncPolicy fsync,
        Duration fsyncInterval,
        CompactionStyle compaction,
        LsmTuning tuning,
        boolean ownLog) {

    /** The default {@link #memtableBytes}. */
    public static final long DEFAULT_MEMTABLE_BYTES = 32L << 20;

    /** The default {@link #blockCacheBytes}. */
    public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L << 20;

    /** The smallest {@link #memtableBytes}: smaller would flush a table every few writes. */
    public static final long MIN_MEMTABLE_BYTES = 64L << 10;

    /** Checks every bound, so that a bad flag fails before the store touches the disk. */
    public LsmOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(fsyncInterval, "fsyncInterval");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(tuning, "tuning");
        if (memtableBytes < MIN_MEMTABLE_BYTES) {
            throw new IllegalArgumentException(
                    "memtable size must be at least "
                            + MIN_MEMTABLE_BYTES
                            + " bytes, got "
                            + memtableBytes);
        }
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException(
                    "block cache size must not be negative, got " + blockCacheBytes);
        }
        if (fsyncInterval.isNegative() || fsyncInterval.isZero()) {
            throw new IllegalArgumentException(
                    "fsync interval must be positive, got " + fsyncInterval);
        }
    }

    /** The defaults for {@code dataDir}: 32 MiB memtable, 64 MiB block cache, fsync always. */
    public static LsmOptions defaults(Path dataDir) {
        return new LsmOptions(
                dataDir,
                DEFAULT_MEMTABLE_BYTES,
                DEFAULT_BLOCK_CACHE_BYTES,
                FsyncPolicy.ALWAYS,
                Duration.ofMillis(100),
                CompactionStyle.LEVELED,
                LsmTuning.DEFAULTS,
                true);
    }

    /** The same options with another {@link #memtableBytes}. */
    public LsmOptions withMemtableBytes(long bytes) {
        return new LsmOptions(
                dataDir, bytes, blockCacheBytes, fsync, fsyncInterval, compaction, tuning, ownLog);
    }

    /** The same options with another {@link #blockCacheBytes}. */
    public LsmOptions withBlockCacheBytes(long bytes) {
        return new LsmOptions(
                dataDir, memtableBytes, bytes, fsync, fsyncInterval, compaction, tuning, ownLog);
    }

    /** The same options with another {@link #fsync}. */
    public LsmOptions withFsync(FsyncPolicy policy) {
        return new LsmOptions(
                dataDir,
                memtableBytes,
                blockCacheBytes,
                policy,
                fsyncInterval,
                compaction,
                tuning,
                ownLog);
    }

    /** The same options with another {@link #fsyncInterval}. */
    public LsmOptions withFsyncInterval(Duration interval) {
        return new LsmOptions(
                dataDir,
                memtableBytes,
                blockCacheBytes,
                fsync,
                interval,
                compaction,
                tuning,
                ownLog);
    }

    /** The same options with another {@link #compaction}. */
    public LsmOptions withCompaction(CompactionStyle style) {
        return new LsmOptions(
                dataDir,
                memtableBytes,
                blockCacheBytes,
                fsync,
                fsyncInterval,
                style,
                tuning,
                ownLog);
    }

    /** The same options with other {@link #tuning}. */
    public LsmOptions withTuning(LsmTuning knobs) {
        return new LsmOptions(
                dataDir,
                memtableBytes,
                blockCacheBytes,
                fsync,
                fsyncInterval,
                compaction,
                knobs,
                ownLog);
    }

    /**
     * The same options without a log of the store's own ({@link #ownLog}): for a store whose
     * owner's log is its write-ahead log.
     */
    public LsmOptions withoutOwnLog() {
        return new LsmOptions(
                dataDir,
                memtableBytes,
                blockCacheBytes,
                fsync,
                fsyncInterval,
                compaction,
                tuning,
                false);
    }
}
