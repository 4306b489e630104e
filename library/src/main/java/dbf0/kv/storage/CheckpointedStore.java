package dbf0.kv.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A store that keeps no log of its own because its owner's log is one: a replicated shard's member,
 * whose Raft log carries every write (see the replication module). The owner applies its log's
 * entries in order and marks where each ends; what the store makes durable (the LSM store: its
 * tables) holds whole entries up to a position it records, and after a restart the owner replays
 * its log from the entry after that. A checkpoint is that durable state copied aside at one
 * position: a snapshot the owner can keep, purge its log behind, and send to a member that lags,
 * which loads it whole with {@link #restore}.
 *
 * <p>Only the owner writes, from one thread, between entries; reads go on meanwhile.
 */
public interface CheckpointedStore extends Store {

    /**
     * The position the durable state holds every write up to, and none after ({@link
     * LogPosition#NONE} for a new store): the owner replays its log from the entry after it.
     *
     * @return the position
     */
    LogPosition applied();

    /**
     * Marks the writes so far as those of the owner's log up to {@code at}, whose entry's writes
     * have all been applied. The store makes durable only whole entries, so only at a mark.
     *
     * @param at the position of the entry just applied
     * @throws IOException if the store had to make room and could not
     */
    void markApplied(LogPosition at) throws IOException;

    /**
     * Makes everything applied durable at {@code at} (the entry just applied), then writes a
     * checkpoint of it into {@code dir}, a new or empty directory on the same file system.
     *
     * @param dir where to write it
     * @param at the position of the entry just applied
     * @return the files written, the one that makes the checkpoint whole last
     * @throws IOException if it could not be written
     */
    List<Path> checkpoint(Path dir, LogPosition at) throws IOException;

    /**
     * The position the checkpoint in {@code dir} holds, read and checked without changing anything.
     *
     * @param dir a checkpoint's directory
     * @return its position
     * @throws IOException naming the file, if the checkpoint is not whole
     */
    LogPosition positionOf(Path dir) throws IOException;

    /**
     * Replaces everything the store holds, durable or not, by the checkpoint in {@code dir}.
     *
     * @param dir a checkpoint's directory, left as it was
     * @return the position the store now holds
     * @throws IOException naming the file, if the checkpoint is not whole; the store is then as it
     *     was
     */
    LogPosition restore(Path dir) throws IOException;
}
