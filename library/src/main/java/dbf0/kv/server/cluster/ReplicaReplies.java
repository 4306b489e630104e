package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * CLUSTER SLOTS, SHARDS, NODES and INFO of a replicated cluster, in Redis 7.0's formats: each
 * shard's Raft leader is its master, holding the shard's slots, and the other members are its
 * replicas ({@code slave} in CLUSTER NODES, with the master's id), so that Redis's cluster clients
 * and {@code redis-cli --cluster check} see masters and replicas as they would in Redis. A node's
 * config epoch is its shard's Raft term: both number the shard's changes of master.
 *
 * <p>Who leads is what this node knows now (its own engine for its shard, its peers' answers for
 * the others), so two nodes may disagree for a moment after a failover, as Redis nodes do while
 * gossip spreads. A shard with no known leader shows its first member as a failed master.
 */
final class ReplicaReplies {

    private ReplicaReplies() {}

    /** One shard as this node sees it: its members, its master (a node index) and its term. */
    private record ShardNow(List<Integer> members, int master, boolean led, long term) {
        List<Integer> replicas() {
            return members.stream().filter(m -> m != master).toList();
        }
    }

    private static List<ShardNow> shards(ClusterState state) {
        Shards shards = state.shards();
        List<ShardNow> all = new ArrayList<>();
        for (int s = 0; s < shards.count(); s++) {
            int leader = state.leaderOf(s);
            all.add(
                    new ShardNow(
                            shards.members(s),
                            leader == SlotMap.NONE ? shards.first(s) : leader,
                            leader != SlotMap.NONE,
                            term(state, leader == SlotMap.NONE ? shards.first(s) : leader)));
        }
        return all;
    }

    /** The term node {@code index} last reported (its own engine's, for this node). */
    private static long term(ClusterState state, int index) {
        if (index == state.myself()) {
            return state.replication().view().term();
        }
        PeerRoles.Heard heard = state.heard(index);
        return heard == null ? 0 : heard.term();
    }

    /** Whether node {@code index} is answering: itself, or a peer heard from lately. */
    private static boolean up(ClusterState state, int index) {
        if (index == state.myself()) {
            return true;
        }
        PeerRoles.Heard heard = state.heard(index);
        return heard != null && heard.fresh(System.currentTimeMillis());
    }

    /** CLUSTER SLOTS: per run of slots, its master and then its replicas. */
    static void slots(ClusterState state, RespConnection connection, OutputBuffer out) {
        SlotMap map = state.map();
        List<ShardNow> shards = shards(state);
        int runs = 0;
        for (int s = 0; s < shards.size(); s++) {
            runs += map.ranges(state.shards().first(s)).size();
        }
        out.put(RespCodec.arrayHeader(runs));
        for (int s = 0; s < shards.size(); s++) {
            ShardNow shard = shards.get(s);
            for (SlotMap.Range r : map.ranges(state.shards().first(s))) {
                out.put(RespCodec.arrayHeader(2 + shard.members().size()));
                out.put(RespCodec.integer(r.first()));
                out.put(RespCodec.integer(r.last()));
                node(connection, out, map.nodes().get(shard.master()));
                for (int replica : shard.replicas()) {
                    node(connection, out, map.nodes().get(replica));
                }
            }
        }
    }

    private static void node(RespConnection connection, OutputBuffer out, ClusterNode node) {
        out.put(RespCodec.arrayHeader(4));
        ClusterReplies.bulk(out, node.host());
        out.put(RespCodec.integer(node.port()));
        ClusterReplies.bulk(out, node.id());
        out.put(connection.resp3() ? RespCodec.mapHeader(0) : RespCodec.arrayHeader(0));
    }

    /** CLUSTER SHARDS: per shard, its slots and its members, master first. */
    static void shards(ClusterState state, RespConnection connection, OutputBuffer out) {
        SlotMap map = state.map();
        List<ShardNow> shards = shards(state);
        out.put(RespCodec.arrayHeader(shards.size()));
        for (int s = 0; s < shards.size(); s++) {
            ShardNow shard = shards.get(s);
            var ranges = map.ranges(state.shards().first(s));
            mapHeader(connection, out, 2);
            ClusterReplies.bulk(out, "slots");
            out.put(RespCodec.arrayHeader(ranges.size() * 2));
            for (SlotMap.Range r : ranges) {
                out.put(RespCodec.integer(r.first()));
                out.put(RespCodec.integer(r.last()));
            }
            ClusterReplies.bulk(out, "nodes");
            out.put(RespCodec.arrayHeader(shard.members().size()));
            List<Integer> order = new ArrayList<>();
            order.add(shard.master());
            order.addAll(shard.replicas());
            for (int i : order) {
                ClusterNode node = map.nodes().get(i);
                mapHeader(connection, out, 7);
                ClusterReplies.bulk(out, "id");
                ClusterReplies.bulk(out, node.id());
                ClusterReplies.bulk(out, "port");
                out.put(RespCodec.integer(node.port()));
                ClusterReplies.bulk(out, "ip");
                ClusterReplies.bulk(out, node.host());
                ClusterReplies.bulk(out, "endpoint");
                ClusterReplies.bulk(out, node.host());
                ClusterReplies.bulk(out, "role");
                ClusterReplies.bulk(out, i == shard.master() ? "master" : "replica");
                ClusterReplies.bulk(out, "replication-offset");
                out.put(RespCodec.integer(applied(state, i)));
                ClusterReplies.bulk(out, "health");
                ClusterReplies.bulk(out, up(state, i) ? "online" : "failed");
            }
        }
    }

    /** How far node {@code index} has applied its shard's log, as it last said. */
    private static long applied(ClusterState state, int index) {
        if (index == state.myself()) {
            return state.replication().view().appliedIndex();
        }
        PeerRoles.Heard heard = state.heard(index);
        return heard == null ? 0 : heard.applied();
    }

    /**
     * CLUSTER NODES: a master's line lists its shard's slots; a replica's names its master's id in
     * the fourth field. A node not heard from lately is flagged {@code fail} and {@code
     * disconnected}.
     */
    static String nodes(ClusterState state) {
        SlotMap map = state.map();
        List<ShardNow> shards = shards(state);
        StringBuilder s = new StringBuilder();
        long now = System.currentTimeMillis();
        for (int i = 0; i < map.nodes().size(); i++) {
            ClusterNode node = map.nodes().get(i);
            int shardIndex = state.shards().shardOf(i);
            ShardNow shard = shards.get(shardIndex);
            boolean master = i == shard.master();
            boolean me = i == state.myself();
            boolean up = up(state, i);
            // @cport is Redis's cluster bus port: here the Raft port, where the shard's members
            // talk.
            s.append(node.id()).append(' ').append(node.address());
            s.append('@').append(state.replication().busPort(i)).append(' ');
            List<String> flags = new ArrayList<>();
            if (me) {
                flags.add("myself");
            }
            flags.add(master ? "master" : "slave");
            if (!up || (master && !shard.led())) {
                flags.add("fail");
            }
            if (!node.hasKnownId()) {
                flags.add("handshake");
            }
            s.append(String.join(",", flags));
            s.append(' ').append(master ? "-" : map.nodes().get(shard.master()).id());
            s.append(" 0 ").append(me ? 0 : now).append(' ').append(shard.term());
            s.append(up ? " connected" : " disconnected");
            if (master) {
                for (SlotMap.Range r : map.ranges(state.shards().first(shardIndex))) {
                    s.append(' ').append(r.first());
                    if (r.last() != r.first()) {
                        s.append('-').append(r.last());
                    }
                }
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * CLUSTER INFO: ok once every shard has a known leader and every id is known; the size is the
     * number of shards, and the epochs are Raft terms.
     */
    static String info(ClusterState state) {
        List<ShardNow> shards = shards(state);
        int served = 0;
        for (int i = 0; i < shards.size(); i++) {
            if (shards.get(i).led()) {
                for (SlotMap.Range r : state.map().ranges(state.shards().first(i))) {
                    served += r.last() - r.first() + 1;
                }
            }
        }
        boolean allKnown = state.map().nodes().stream().allMatch(ClusterNode::hasKnownId);
        long epoch = shards.stream().mapToLong(ShardNow::term).max().orElse(0);
        return "cluster_state:"
                + (served == HashSlots.SLOTS && allKnown ? "ok" : "fail")
                + "\r\ncluster_slots_assigned:"
                + HashSlots.SLOTS
                + "\r\ncluster_slots_ok:"
                + served
                + "\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:"
                + (HashSlots.SLOTS - served)
                + "\r\ncluster_known_nodes:"
                + state.map().nodes().size()
                + "\r\ncluster_size:"
                + shards.size()
                + "\r\ncluster_current_epoch:"
                + epoch
                + "\r\ncluster_my_epoch:"
                + state.replication().view().term()
                + "\r\ncluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n"
                + "total_cluster_links_buffer_limit_exceeded:0\r\n";
    }

    private static void mapHeader(RespConnection connection, OutputBuffer out, int pairs) {
        out.put(connection.resp3() ? RespCodec.mapHeader(pairs) : RespCodec.arrayHeader(pairs * 2));
    }
}
