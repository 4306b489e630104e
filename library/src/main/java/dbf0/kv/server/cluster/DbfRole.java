package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.util.List;
import java.util.Locale;

/**
 * {@code DBF0-ROLE}, dbf0's own: this node's view of its shard as one line of text, {@code role
 * term leader commit applied}, for instance {@code leader 3 0 1207 1207} or {@code follower 3 0
 * 1207 1205} ({@code leader} is a node index, -1 for none). What {@link PeerRoles} asks every peer;
 * a person can ask it too. Redis's ROLE says less (no term), and a node needs the term to tell a
 * leader from an old one.
 */
final class DbfRole implements RespCommand {

    private final ClusterState state;

    DbfRole(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of("DBF0-ROLE");
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        ShardView v = state.replication().view();
        ClusterReplies.bulk(
                out,
                v.role().name().toLowerCase(Locale.ROOT)
                        + " "
                        + v.term()
                        + " "
                        + v.leader()
                        + " "
                        + v.commitIndex()
                        + " "
                        + v.appliedIndex());
        return false;
    }

    /** Reads a line that {@link #execute} wrote, heard at {@code at} (epoch ms). */
    static PeerRoles.Heard parse(String line, long at) {
        String[] f = line.strip().split(" ");
        if (f.length != 5) {
            throw new IllegalArgumentException("not a DBF0-ROLE line: " + line);
        }
        int leader = Integer.parseInt(f[2]);
        return new PeerRoles.Heard(
                ShardView.Role.valueOf(f[0].toUpperCase(Locale.ROOT)),
                Long.parseLong(f[1]),
                leader < 0 ? SlotMap.NONE : leader,
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                at);
    }
}
