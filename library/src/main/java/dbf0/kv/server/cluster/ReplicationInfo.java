package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.SlotMap;
import java.util.List;
import java.util.Locale;

/**
 * INFO's {@code # Replication} section on a member of a replicated shard, in Redis's field names
 * where Redis has the same figure, {@code dbf0_} ones for Raft's own. The shard's leader is its
 * master, its followers are the replicas. Offsets are Raft log indexes, not Redis's byte offsets:
 * {@code master_repl_offset} is the commit index (what a majority holds), a replica's {@code
 * slave_repl_offset} its applied index, and a replica's {@code offset} on the master's {@code
 * slaveN} line its matchIndex (what it holds). {@code master_replid} is the leader's node id, which
 * changes at a failover as Redis's replication id does.
 */
final class ReplicationInfo {

    /**
     * A follower the leader has not heard from for this long is not counted as connected (Redis
     * waits for its repl-timeout, 60 s; a Raft leader hears from its followers every heartbeat).
     */
    static final long LINK_DOWN_MILLIS = 5_000;

    private ReplicationInfo() {}

    /** The followers a leader heard from lately: Redis's connected replicas. */
    static List<ShardReport.Follower> connected(ShardReport report) {
        return report.followers().stream()
                .filter(f -> f.heardMillis() >= 0 && f.heardMillis() < LINK_DOWN_MILLIS)
                .toList();
    }

    /** True if a follower hears its leader: Redis's {@code master_link_status:up}. */
    static boolean linkUp(ShardReport report) {
        return report.view().role() == ShardView.Role.FOLLOWER
                && report.view().leader() != SlotMap.NONE
                && report.leaderHeardMillis() >= 0
                && report.leaderHeardMillis() < LINK_DOWN_MILLIS;
    }

    static String render(ClusterState state) {
        ShardReport r = state.replication().report();
        ShardView v = r.view();
        List<ClusterNode> nodes = state.map().nodes();
        StringBuilder s = new StringBuilder();
        if (v.leading()) {
            List<ShardReport.Follower> connected = connected(r);
            line(s, "role", "master");
            line(s, "connected_slaves", connected.size());
            for (int i = 0; i < connected.size(); i++) {
                ShardReport.Follower f = connected.get(i);
                ClusterNode node = nodes.get(f.node());
                line(
                        s,
                        "slave" + i,
                        "ip="
                                + node.host()
                                + ",port="
                                + node.port()
                                + ",state=online,offset="
                                + f.matchIndex()
                                + ",lag="
                                + f.heardMillis() / 1000);
            }
            line(s, "master_replid", state.me().id());
        } else {
            int master = r.lastLeader();
            ClusterNode node = master == SlotMap.NONE ? null : nodes.get(master);
            line(s, "role", "slave");
            line(s, "master_host", node == null ? "?" : node.host());
            line(s, "master_port", node == null ? 0 : node.port());
            line(s, "master_link_status", linkUp(r) ? "up" : "down");
            line(
                    s,
                    "master_last_io_seconds_ago",
                    r.leaderHeardMillis() < 0 ? -1 : r.leaderHeardMillis() / 1000);
            line(s, "master_sync_in_progress", 0);
            line(s, "slave_read_repl_offset", v.commitIndex());
            line(s, "slave_repl_offset", v.appliedIndex());
            line(s, "slave_read_only", 1);
            line(s, "connected_slaves", 0);
            if (node != null) {
                line(s, "master_replid", node.id());
            }
        }
        line(s, "master_repl_offset", v.commitIndex());
        line(s, "dbf0_raft_role", v.role().name().toLowerCase(Locale.ROOT));
        line(s, "dbf0_raft_member", r.memberId());
        line(s, "dbf0_raft_term", v.term());
        line(s, "dbf0_raft_commit_index", v.commitIndex());
        line(s, "dbf0_raft_applied_index", v.appliedIndex());
        line(s, "dbf0_raft_shard", state.shards().shardOf(state.myself()));
        return s.toString();
    }

    private static void line(StringBuilder s, String field, Object value) {
        s.append(field).append(':').append(value).append("\r\n");
    }
}
