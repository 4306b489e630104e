package dbf0.kv.server.cluster;

import dbf0.kv.cluster.SlotMap;
import java.util.List;

/**
 * What INFO replication, ROLE and WAIT say of a node's shard: its {@link ShardView} and the figures
 * that cost more to gather than a command's routing may pay.
 *
 * @param view the role, term, leader and log positions
 * @param memberId this node's id in its engine (a Raft peer id such as {@code n1}); empty if none
 * @param lastLeader the leader as this node last knew it, or {@link SlotMap#NONE} if it never knew
 *     one: a replica names its master even while an election is on, as a Redis replica whose link
 *     is down does
 * @param leaderHeardMillis on a follower, how long ago it last heard from its leader; -1 if never
 *     or not a follower
 * @param followers on a leader, one entry per other member of the shard; empty elsewhere
 */
public record ShardReport(
        ShardView view,
        String memberId,
        int lastLeader,
        long leaderHeardMillis,
        List<Follower> followers) {

    /**
     * A leader's figures for one follower.
     *
     * @param node the follower's node index
     * @param matchIndex the last log index it is known to hold (Raft's matchIndex): what WAIT
     *     counts
     * @param heardMillis how long ago it last answered the leader
     */
    public record Follower(int node, long matchIndex, long heardMillis) {}

    public ShardReport {
        followers = List.copyOf(followers);
    }

    /** The report of a node whose engine is not running. */
    public static ShardReport down(int lastLeader) {
        return new ShardReport(ShardView.DOWN, "", lastLeader, -1, List.of());
    }
}
