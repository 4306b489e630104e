package dbf0.kv.replication;

import dbf0.kv.cluster.SlotMap;
import dbf0.kv.server.cluster.ShardReport;
import dbf0.kv.server.cluster.ShardView;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * Ratis's figures for INFO replication, ROLE and WAIT ({@link ShardReport}), read from a member's
 * division: a leader's followers with their matchIndex (the last index each is known to hold) and
 * how long ago each answered; a follower's time since it last heard from its leader.
 *
 * <p>Why matchIndex and not Ratis's commit infos: a commit info holds the index a follower last
 * said it knows committed, which lags what it holds by one heartbeat (the leader tells it of a
 * commit only with its next append). WAIT asks how many replicas hold a write, which is the
 * matchIndex. Ratis lists the matchIndexes and the followers' ids separately, both in the order of
 * its log appenders; a membership change between the two reads (dbf0 makes none) would make their
 * lengths differ, and the report then lists no follower rather than guess.
 */
final class ShardReports {

    private ShardReports() {}

    static ShardReport of(ShardView view, RaftServer.Division d, int myself, int lastLeader) {
        String member = ShardGroup.peerId(myself).toString();
        if (view.role() == ShardView.Role.LEADER) {
            long[] match = d.getInfo().getFollowerMatchIndices();
            RoleInfoProto role = d.getInfo().getRoleInfoProto();
            List<ServerRpcProto> rpcs = role.getLeaderInfo().getFollowerInfoList();
            List<ShardReport.Follower> followers = new ArrayList<>();
            if (match.length == rpcs.size()) {
                for (int i = 0; i < match.length; i++) {
                    ServerRpcProto rpc = rpcs.get(i);
                    int node = ShardGroup.nodeOf(RaftPeerId.valueOf(rpc.getId().getId()));
                    if (node != SlotMap.NONE) {
                        followers.add(
                                new ShardReport.Follower(
                                        node, match[i], rpc.getLastRpcElapsedTimeMs()));
                    }
                }
            }
            return new ShardReport(view, member, myself, -1, followers);
        }
        long heard = -1;
        if (view.role() == ShardView.Role.FOLLOWER) {
            RoleInfoProto role = d.getInfo().getRoleInfoProto();
            if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
                heard = role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
            }
        }
        return new ShardReport(view, member, lastLeader, heard, List.of());
    }

    /** How many of a leader's followers hold the log up to {@code index}. */
    static int holding(ShardReport report, long index) {
        int n = 0;
        for (ShardReport.Follower f : report.followers()) {
            if (f.matchIndex() >= index) {
                n++;
            }
        }
        return n;
    }
}
