package dbf0.kv.replication;

import java.io.IOException;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;

/**
 * How a shard's state machine keeps snapshots of its store, the one part that differs by store: a
 * map in memory is dumped whole ({@link MapSnapshots}); the LSM store, whose tables are already on
 * disk, links them aside ({@link TableSnapshots}). Ratis calls each of these from the thread that
 * applies the log, between two entries, so the store does not change under them.
 */
interface Snapshots {

    /**
     * Where Ratis finds the latest snapshot, to purge the log behind it and send it to a member.
     */
    StateMachineStorage storage();

    /**
     * At start-up: makes the store hold what it held before the stop (loading a snapshot if need
     * be), so that Ratis replays the log from the entry after the position returned.
     *
     * @return the position the store holds, or null for none (an empty store)
     */
    TermIndex start(RaftStorage raftStorage) throws IOException;

    /**
     * After Ratis has installed a snapshot the leader sent: loads it as the store.
     *
     * @return its position
     */
    TermIndex installed() throws IOException;

    /**
     * Takes a snapshot of the store, which has applied the log up to {@code last}.
     *
     * @return the index of the snapshot taken; Ratis may purge the log up to it
     */
    long take(TermIndex last) throws IOException;

    /** The entry at {@code entry} has been applied to the store, whole. */
    void applied(TermIndex entry) throws IOException;
}
