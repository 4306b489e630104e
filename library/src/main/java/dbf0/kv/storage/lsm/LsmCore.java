package dbf0.kv.storage.lsm;

import dbf0.kv.storage.wal.WalDirectory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the store's parts share: the directory, the manifest, the cache, the current {@link
 * LsmState} and the counters. The state changes only under {@link #stateLock}, which writers that
 * must wait for the background thread (a stall) wait on.
 */
final class LsmCore {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LsmCore.class);

    final LsmOptions options;
    final LsmTuning tuning;
    final WalDirectory dir;
    final Manifest manifest;
    final BlockCache cache;
    final Object stateLock = new Object();

    /** Reads in flight, so that tables compaction removed are closed once none can use them. */
    final ReadGate readGate = new ReadGate();

    final AtomicLong nextFile;

    /** The store's state; replaced under {@link #stateLock}. */
    volatile LsmState state;

    /**
     * Cells with a sequence number below this are gone (a clear): set before the memtable is
     * emptied, so that no reader sees half a clear.
     */
    volatile long clearSeq;

    /** Set when the background thread cannot flush: writes that must wait for it fail instead. */
    volatile Throwable backgroundFailure;

    /** Set while compactions fail: writers stopped at the level-0 limit give up waiting. */
    volatile Throwable compactionFailure;

    volatile boolean closing;

    // Counters for stats().
    final LongAdder userBytes = new LongAdder();
    final LongAdder walBytes = new LongAdder();
    final LongAdder tableBytes = new LongAdder();
    final LongAdder gets = new LongAdder();
    final LongAdder stallNanos = new LongAdder();
    final LongAdder flushes = new LongAdder();
    final LongAdder compactions = new LongAdder();

    /** The size of the log of the memtable being flushed, for {@code diskBytes}. */
    volatile long immutableLogBytes;

    LsmCore(
            LsmOptions options,
            WalDirectory dir,
            Manifest manifest,
            LsmState state,
            long nextFile) {
        this.options = options;
        this.tuning = options.tuning();
        this.dir = dir;
        this.manifest = manifest;
        this.cache = new BlockCache(options.blockCacheBytes());
        this.state = state;
        this.nextFile = new AtomicLong(nextFile);
    }

    /** Replaces the state and wakes every writer waiting on it; under {@link #stateLock}. */
    void install(LsmState next) {
        state = next;
        stateLock.notifyAll();
    }

    /** Closes every open table and the manifest (not the directory). */
    void closeFiles() {
        for (Table t : state.version().all()) {
            try {
                t.close();
            } catch (java.io.IOException e) {
                LOG.warn("closing {}: {}", t, e.toString());
            }
        }
        try {
            manifest.close();
        } catch (java.io.IOException e) {
            LOG.warn("closing the manifest: {}", e.toString());
        }
    }
}
