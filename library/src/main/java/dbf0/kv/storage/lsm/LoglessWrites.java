package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.LogPosition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The writes of a store without a log of its own ({@link LsmOptions#ownLog} off): its owner's log
 * (a replicated shard's Raft log) already holds each write, so a write goes straight into the
 * memtable, under a lock of its own where the log's lock would otherwise order them.
 *
 * <p>The owner marks where each of its entries ends ({@link #markApplied}). The active memtable
 * becomes the immutable one only at a mark, so each table, and each set of tables the manifest
 * names, holds whole entries; the flush's manifest edit records the mark of the memtable it wrote.
 * After a crash the store opens with the tables alone, and the owner replays its log from the entry
 * after the recorded mark.
 */
final class LoglessWrites {

    private final LsmCore core;
    private final WritePath writes;
    private final Background background;
    private final Object lock = new Object();

    LoglessWrites(LsmCore core, WritePath writes, Background background) {
        this.core = core;
        this.writes = writes;
        this.background = background;
    }

    void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        synchronized (lock) {
            writes.put(key, value);
        }
    }

    boolean delete(ByteArrayWrapper key) {
        synchronized (lock) {
            return writes.delete(key);
        }
    }

    void clear() {
        synchronized (lock) {
            writes.clear();
        }
    }

    /** The writes so far end the owner's entry at {@code at}; a full memtable is flushed now. */
    void markApplied(LogPosition at) throws IOException {
        synchronized (lock) {
            core.state.active().applied(at);
            writes.rotate(false);
        }
    }

    /**
     * Marks {@code at}, flushes the memtable and waits for it, records {@code at} in the manifest
     * (an edit of its own when the memtable was empty), then links the tables into {@code dir}.
     */
    List<Path> checkpoint(Path dir, LogPosition at) throws IOException {
        synchronized (lock) {
            core.state.active().applied(at);
            writes.rotate(true);
            writes.awaitFlushed();
            background.recordApplied(at);
            return background.checkpoint(dir).files();
        }
    }

    /**
     * Checks the checkpoint whole, then, with writes held and the background threads paused,
     * replaces the store's tables, memtables and sequence numbers by it ({@link
     * Checkpoint#restore}).
     */
    LogPosition restore(Path dir) throws IOException {
        Checkpoint.read(dir); // refused before anything changes
        synchronized (lock) {
            background.pause();
            try {
                return Checkpoint.restore(core, writes, background, dir);
            } finally {
                background.resume();
            }
        }
    }
}
