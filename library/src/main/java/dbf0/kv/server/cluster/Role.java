package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.util.List;

/**
 * ROLE, in Redis's reply shapes. On the shard's leader: {@code master}, its offset (the commit
 * index) and an array of its connected replicas, each {@code [ip, port, offset]} with the port and
 * offset as bulk strings, as Redis sends them (the offset is the follower's matchIndex). On any
 * other member: {@code slave}, its master's ip and port (the leader it last knew; {@code "?"} and 0
 * if it never knew one), the link's state ({@code connected} while it hears its leader, else {@code
 * connect}, Redis's word for a replica that must connect again) and its offset (the applied index).
 * See {@link ReplicationInfo} for what the offsets mean.
 */
final class Role implements RespCommand {

    private final ClusterState state;

    Role(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of("ROLE");
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        ShardReport r = state.replication().report();
        List<ClusterNode> nodes = state.map().nodes();
        if (r.view().leading()) {
            List<ShardReport.Follower> connected = ReplicationInfo.connected(r);
            out.put(RespCodec.arrayHeader(3));
            ClusterReplies.bulk(out, "master");
            out.put(RespCodec.integer(r.view().commitIndex()));
            out.put(RespCodec.arrayHeader(connected.size()));
            for (ShardReport.Follower f : connected) {
                ClusterNode node = nodes.get(f.node());
                out.put(RespCodec.arrayHeader(3));
                ClusterReplies.bulk(out, node.host());
                ClusterReplies.bulk(out, Integer.toString(node.port()));
                ClusterReplies.bulk(out, Long.toString(f.matchIndex()));
            }
            return false;
        }
        int master = r.lastLeader();
        ClusterNode node = master == SlotMap.NONE ? null : nodes.get(master);
        out.put(RespCodec.arrayHeader(5));
        ClusterReplies.bulk(out, "slave");
        ClusterReplies.bulk(out, node == null ? "?" : node.host());
        out.put(RespCodec.integer(node == null ? 0 : node.port()));
        ClusterReplies.bulk(out, ReplicationInfo.linkUp(r) ? "connected" : "connect");
        out.put(RespCodec.integer(r.view().appliedIndex()));
        return false;
    }
}
