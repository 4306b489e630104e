package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link BTreeStore} keeps its data. Build from {@link #defaults} and the {@code with}
 * methods.
 *
 * @param dataDir the directory of the tree's file, its double-write file and its logs, and nothing
 *     else
 * @param pageSize the size of a page of a new file, a power of two from 1 KiB to 32 KiB; an
 *     existing file keeps the size it was made with
 * @param bufferPoolBytes the bound of the pages held in memory ({@link BufferPool})
 * @param fsync when the write-ahead log is forced to disk
 * @param fsyncInterval the period of the background force under {@link FsyncPolicy#INTERVAL}
 * @param checkpointLogBytes a checkpoint starts once the current log holds this many bytes, or once
 *     a quarter of the pool is dirty, whichever comes first: the bound of a replay at start-up
 */
public record BTreeOptions(
        Path dataDir,
        int pageSize,
        long bufferPoolBytes,
        FsyncPolicy fsync,
        Duration fsyncInterval,
        long checkpointLogBytes) {

    /** The default {@link #bufferPoolBytes}. */
    public static final long DEFAULT_BUFFER_POOL_BYTES = 64L << 20;

    /** The default {@link #checkpointLogBytes}. */
    public static final long DEFAULT_CHECKPOINT_LOG_BYTES = 64L << 20;

    /** Checks every bound, so that a bad flag fails before the store touches the disk. */
    public BTreeOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(fsyncInterval, "fsyncInterval");
        Page.checkSize(pageSize);
        if (bufferPoolBytes < 16L * pageSize) {
            throw new IllegalArgumentException(
                    "the buffer pool must hold at least 16 pages ("
                            + 16L * pageSize
                            + " bytes), got "
                            + bufferPoolBytes);
        }
        if (checkpointLogBytes < 1) {
            throw new IllegalArgumentException(
                    "checkpoint log size must be positive, got " + checkpointLogBytes);
        }
        if (fsyncInterval.isNegative() || fsyncInterval.isZero()) {
            throw new IllegalArgumentException(
                    "fsync interval must be positive, got " + fsyncInterval);
        }
    }

    /** The defaults for {@code dataDir}: 4 KiB pages, a 64 MiB pool, fsync always. */
    public static BTreeOptions defaults(Path dataDir) {
        return new BTreeOptions(
                dataDir,
                Page.DEFAULT_SIZE,
                DEFAULT_BUFFER_POOL_BYTES,
                FsyncPolicy.ALWAYS,
                Duration.ofMillis(100),
                DEFAULT_CHECKPOINT_LOG_BYTES);
    }

    /** The same options with another {@link #pageSize}. */
    public BTreeOptions withPageSize(int bytes) {
        return new BTreeOptions(
                dataDir, bytes, bufferPoolBytes, fsync, fsyncInterval, checkpointLogBytes);
    }

    /** The same options with another {@link #bufferPoolBytes}. */
    public BTreeOptions withBufferPoolBytes(long bytes) {
        return new BTreeOptions(dataDir, pageSize, bytes, fsync, fsyncInterval, checkpointLogBytes);
    }

    /** The same options with another {@link #fsync}. */
    public BTreeOptions withFsync(FsyncPolicy policy) {
        return new BTreeOptions(
                dataDir, pageSize, bufferPoolBytes, policy, fsyncInterval, checkpointLogBytes);
    }

    /** The same options with another {@link #fsyncInterval}. */
    public BTreeOptions withFsyncInterval(Duration interval) {
        return new BTreeOptions(
                dataDir, pageSize, bufferPoolBytes, fsync, interval, checkpointLogBytes);
    }

    /** The same options with another {@link #checkpointLogBytes}. */
    public BTreeOptions withCheckpointLogBytes(long bytes) {
        return new BTreeOptions(dataDir, pageSize, bufferPoolBytes, fsync, fsyncInterval, bytes);
    }
}
