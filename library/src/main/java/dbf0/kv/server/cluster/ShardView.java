package dbf0.kv.server.cluster;

import dbf0.kv.cluster.SlotMap;
import java.util.Map;

/**
 * What one node knows of its shard's replication at one moment, as its consensus engine tells it:
 * its own role, the term, who leads, and how far the log has come. CLUSTER NODES, ROLE, INFO
 * replication and the routing of every command read it.
 *
 * @param role this node's role now
 * @param term the newest term this node has seen (Raft's election epoch)
 * @param leader the node index of the shard's leader as this node knows it, or {@link SlotMap#NONE}
 *     while there is none (an election, or this node cut off)
 * @param commitIndex the last log index this node knows a majority holds
 * @param appliedIndex the last log index this node has applied to its store
 * @param matchIndex on a leader, for each follower's node index, the last log index it is known to
 *     hold; empty elsewhere
 */
public record ShardView(
        Role role,
        long term,
        int leader,
        long commitIndex,
        long appliedIndex,
        Map<Integer, Long> matchIndex) {

    /** A member's role in its shard's Raft group. */
    public enum Role {
        /** Takes the shard's writes and linearizable reads: Redis's master. */
        LEADER,
        /** Copies the leader's log: Redis's replica. */
        FOLLOWER,
        /** Asking for votes: no leader is known to it. */
        CANDIDATE,
        /** Not running (starting, or stopped). */
        DOWN
    }

    /** The view of a node whose engine is not running. */
    public static final ShardView DOWN = new ShardView(Role.DOWN, 0, SlotMap.NONE, 0, 0, Map.of());

    public ShardView {
        matchIndex = Map.copyOf(matchIndex);
    }

    /** True if this node leads its shard. */
    public boolean leading() {
        return role == Role.LEADER;
    }
}
