package dbf0.kv.replication;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * A shard as a Raft group: its members are the shard's nodes, each named {@code n<index>} by its
 * place in {@code --cluster-nodes} and reached at its host and client port plus the Raft port
 * offset. The group's id is derived from the shard's number, so every member computes the same one
 * with nothing to exchange.
 */
final class ShardGroup {

    private ShardGroup() {}

    /** The Raft id of node {@code index}. */
    static RaftPeerId peerId(int index) {
        return RaftPeerId.valueOf("n" + index);
    }

    /** The node index a Raft id names, or {@link SlotMap#NONE} for null or a foreign id. */
    static int nodeOf(RaftPeerId id) {
        if (id == null) {
            return SlotMap.NONE;
        }
        String s = id.toString();
        if (!s.startsWith("n")) {
            return SlotMap.NONE;
        }
        try {
            return Integer.parseInt(s.substring(1));
        } catch (NumberFormatException e) {
            return SlotMap.NONE;
        }
    }

    /** Where node {@code node}'s Raft server listens. */
    static String raftAddress(ClusterNode node, int offset) {
        return node.host() + ":" + raftPort(node, offset);
    }

    static int raftPort(ClusterNode node, int offset) {
        int port = node.port() + offset;
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException(
                    "node "
                            + node.address()
                            + "'s Raft port would be "
                            + port
                            + ": choose another --raft-port-offset");
        }
        return port;
    }

    /** The group of {@code shard}: its id and its members. */
    static RaftGroup of(int shard, List<ClusterNode> nodes, Shards shards, int offset) {
        RaftPeer[] peers =
                shards.members(shard).stream()
                        .map(
                                i ->
                                        RaftPeer.newBuilder()
                                                .setId(peerId(i))
                                                .setAddress(raftAddress(nodes.get(i), offset))
                                                .build())
                        .toArray(RaftPeer[]::new);
        return RaftGroup.valueOf(groupId(shard), peers);
    }

    static RaftGroupId groupId(int shard) {
        return RaftGroupId.valueOf(
                UUID.nameUUIDFromBytes(("dbf0 shard " + shard).getBytes(StandardCharsets.UTF_8)));
    }
}
