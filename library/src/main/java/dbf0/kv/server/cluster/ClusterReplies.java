package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespConnection;
import java.nio.charset.StandardCharsets;

/**
 * The replies that describe the whole cluster: CLUSTER SLOTS, SHARDS, NODES and INFO, in the
 * formats Redis 7.0 documents, byte for byte. Every node is a master with no replicas; a node's
 * config epoch is its place in {@code --cluster-nodes} plus one, and never changes, since with no
 * failover there is nothing for epochs to arbitrate.
 */
final class ClusterReplies {

    private ClusterReplies() {}

    /**
     * CLUSTER SLOTS: per run of slots with one owner, in slot order, {@code [first, last, [host,
     * port, id, {}]]}; the empty map (RESP2: empty array) is Redis 7's place for hostnames.
     */
    static void slots(ClusterState state, RespConnection connection, OutputBuffer out) {
        SlotMap map = state.map();
        int runs = 0;
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            if (map.owner(slot) != SlotMap.NONE
                    && (slot == 0 || map.owner(slot - 1) != map.owner(slot))) {
                runs++;
            }
        }
        out.put(RespCodec.arrayHeader(runs));
        int slot = 0;
        while (slot < HashSlots.SLOTS) {
            int owner = map.owner(slot);
            int last = slot;
            while (last + 1 < HashSlots.SLOTS && map.owner(last + 1) == owner) {
                last++;
            }
            if (owner != SlotMap.NONE) {
                ClusterNode node = map.nodes().get(owner);
                out.put(RespCodec.arrayHeader(3));
                out.put(RespCodec.integer(slot));
                out.put(RespCodec.integer(last));
                out.put(RespCodec.arrayHeader(4));
                bulk(out, node.host());
                out.put(RespCodec.integer(node.port()));
                bulk(out, node.id());
                out.put(connection.resp3() ? RespCodec.mapHeader(0) : RespCodec.arrayHeader(0));
            }
            slot = last + 1;
        }
    }

    /**
     * CLUSTER SHARDS: one shard per node, in list order: a map of its {@code slots} (first, last,
     * first, last...) and its {@code nodes}, here just the one master.
     */
    static void shards(ClusterState state, RespConnection connection, OutputBuffer out) {
        SlotMap map = state.map();
        out.put(RespCodec.arrayHeader(map.nodes().size()));
        for (int i = 0; i < map.nodes().size(); i++) {
            ClusterNode node = map.nodes().get(i);
            var ranges = map.ranges(i);
            mapHeader(connection, out, 2);
            bulk(out, "slots");
            out.put(RespCodec.arrayHeader(ranges.size() * 2));
            for (SlotMap.Range r : ranges) {
                out.put(RespCodec.integer(r.first()));
                out.put(RespCodec.integer(r.last()));
            }
            bulk(out, "nodes");
            out.put(RespCodec.arrayHeader(1));
            mapHeader(connection, out, 7);
            bulk(out, "id");
            bulk(out, node.id());
            bulk(out, "port");
            out.put(RespCodec.integer(node.port()));
            bulk(out, "ip");
            bulk(out, node.host());
            bulk(out, "endpoint");
            bulk(out, node.host());
            bulk(out, "role");
            bulk(out, "master");
            bulk(out, "replication-offset");
            out.put(RespCodec.integer(0));
            bulk(out, "health");
            bulk(out, i == state.myself() || known(node) ? "online" : "loading");
        }
    }

    /**
     * CLUSTER NODES' text: a line per node, {@code id host:port@cport flags master ping-sent
     * pong-recv config-epoch link-state slots...}. There is no cluster bus, so cport is 0; a peer
     * whose id is not known yet shows forty zeros and the flag {@code handshake}. This node's line
     * also lists its moving slots, {@code [slot->-target-id]} and {@code [slot-<-source-id]}.
     */
    static String nodes(ClusterState state) {
        SlotMap map = state.map();
        StringBuilder s = new StringBuilder();
        long now = System.currentTimeMillis();
        for (int i = 0; i < map.nodes().size(); i++) {
            ClusterNode node = map.nodes().get(i);
            boolean me = i == state.myself();
            s.append(node.id()).append(' ').append(node.address()).append("@0 ");
            s.append(me ? "myself,master" : known(node) ? "master" : "master,handshake");
            s.append(" - 0 ").append(me ? 0 : now).append(' ').append(i + 1);
            s.append(" connected");
            for (SlotMap.Range r : map.ranges(i)) {
                s.append(' ').append(r.first());
                if (r.last() != r.first()) {
                    s.append('-').append(r.last());
                }
            }
            if (me) {
                for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
                    if (map.migrating(slot) != SlotMap.NONE) {
                        s.append(" [").append(slot).append("->-");
                        s.append(map.nodes().get(map.migrating(slot)).id()).append(']');
                    }
                    if (map.importing(slot) != SlotMap.NONE) {
                        s.append(" [").append(slot).append("-<-");
                        s.append(map.nodes().get(map.importing(slot)).id()).append(']');
                    }
                }
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * CLUSTER INFO's text, Redis's fields in Redis's order. The state is ok once every slot has an
     * owner and every peer's id is known; there are no cluster bus messages to count.
     */
    static String info(ClusterState state) {
        SlotMap map = state.map();
        int assigned = HashSlots.SLOTS - map.unassigned();
        boolean allKnown = map.nodes().stream().allMatch(ClusterNode::hasKnownId);
        int sized = 0;
        for (int i = 0; i < map.nodes().size(); i++) {
            if (!map.ranges(i).isEmpty()) {
                sized++;
            }
        }
        return "cluster_state:"
                + (assigned == HashSlots.SLOTS && allKnown ? "ok" : "fail")
                + "\r\ncluster_slots_assigned:"
                + assigned
                + "\r\ncluster_slots_ok:"
                + assigned
                + "\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:"
                + map.nodes().size()
                + "\r\ncluster_size:"
                + sized
                + "\r\ncluster_current_epoch:"
                + map.nodes().size()
                + "\r\ncluster_my_epoch:"
                + (state.myself() + 1)
                + "\r\ncluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n"
                + "total_cluster_links_buffer_limit_exceeded:0\r\n";
    }

    /** Text for a person: a verbatim string in RESP3, a bulk string in RESP2, as Redis sends. */
    static void text(RespConnection connection, OutputBuffer out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (connection.resp3()) {
            RespCodec.putVerbatim(out.reserve(RespCodec.verbatimSize(bytes)), "txt", bytes);
        } else {
            RespCodec.putBulk(out.reserve(RespCodec.bulkSize(bytes)), bytes);
        }
    }

    static void bulk(OutputBuffer out, String s) {
        bulk(out, s.getBytes(StandardCharsets.UTF_8));
    }

    static void bulk(OutputBuffer out, byte[] bytes) {
        RespCodec.putBulk(out.reserve(RespCodec.bulkSize(bytes)), bytes);
    }

    private static void mapHeader(RespConnection connection, OutputBuffer out, int pairs) {
        out.put(connection.resp3() ? RespCodec.mapHeader(pairs) : RespCodec.arrayHeader(pairs * 2));
    }

    private static boolean known(ClusterNode node) {
        return node.hasKnownId();
    }
}
