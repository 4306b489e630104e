package dbf0.kv.server.cluster;

import dbf0.kv.cluster.SlotMap;

/**
 * What one node knows of its shard's replication at one moment, as its consensus engine tells it:
 * its own role, the term, who leads, and how far the log has come. The routing of every command
 * reads it, so it holds only what is cheap to read; {@link ShardReport} adds what INFO replication
 * and ROLE report.
 *
 * @param role this node's role now
 * @param term the newest term this node has seen (Raft's election epoch)
 * @param leader the node index of the shard's leader as this node knows it, or {@link SlotMap#NONE}
 *     while there is none (an election, or this node cut off)
 * @param commitIndex the last log index this node knows a majority holds
 * @param appliedIndex the last log index this node has applied to its store
 */
public record ShardView(Role role, long term, int leader, long commitIndex, long appliedIndex) {

    /** A member's role in its shard's Raft group. */
    public enum Role {
        /** Takes the shard's writes and linearizable reads: Redis's master. */
        LEADER,
        /** Copies the leader's log: Redis's replica. */
        FOLLOWER,
        /** Asking for votes: no leader is known to it. */
        CANDIDATE,
        /** Not running: starting (asking its peers whether they know it), refused, or stopped. */
        DOWN
    }

    /** The view of a node whose engine is not running. */
    public static final ShardView DOWN = new ShardView(Role.DOWN, 0, SlotMap.NONE, 0, 0);

    /** True if this node leads its shard. */
    public boolean leading() {
        return role == Role.LEADER;
    }

    /**
     * True if this node's copy is one a READONLY connection may read: a follower's or a candidate's
     * (possibly behind, as a Redis replica's may be), not that of a node still joining or not
     * running.
     */
    public boolean servesStaleReads() {
        return role == Role.FOLLOWER || role == Role.CANDIDATE;
    }
}
