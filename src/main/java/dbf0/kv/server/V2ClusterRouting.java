package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.server.cluster.ClusterState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Protocol v2 on a cluster node: TOPOLOGY answered with the slot map, and MOVED in place of a GET,
 * SET, DELETE or BATCH whose key another node owns. A batch is all or nothing: if any of its keys
 * is owned elsewhere it is answered MOVED (the first such key's slot), with nothing applied, and
 * the client splits it again by the fresh map.
 *
 * <p>v2 has no ASK: while a slot migrates, its owner keeps serving it until {@code SETSLOT NODE}
 * hands it over, after which v2 clients are moved. A key already migrated and asked of the old
 * owner in between reads as missing there; the Redis protocol, with ASK, is the one to use across a
 * reshard.
 */
final class V2ClusterRouting {

    private final ClusterState state;

    V2ClusterRouting(ClusterState state) {
        this.state = state;
    }

    /** What to answer in place of running {@code request} here, or null to run it. */
    Response answer(Request request) {
        SlotMap map = state.map();
        return switch (request) {
            case Request.Topology topology -> topology(map);
            case Request.Get get -> refusal(map, get.key());
            case Request.Set set -> refusal(map, set.key());
            case Request.Delete delete -> refusal(map, delete.key());
            case Request.Batch batch -> {
                for (Request op : batch.ops()) {
                    Response refusal = answer(op);
                    if (refusal != null) {
                        yield refusal;
                    }
                }
                yield null;
            }
            case Request.Ping ping -> null;
            case Request.Range range -> null; // a scan of this node's own keys
        };
    }

    private Response refusal(SlotMap map, ByteArrayWrapper key) {
        int slot = HashSlots.slot(key.getArray());
        int owner = map.owner(slot);
        if (owner == state.myself()) {
            return null;
        }
        return owner == SlotMap.NONE
                ? new Response.Error("CLUSTERDOWN hash slot " + slot + " is served by no node")
                : new Response.Moved(slot, map.nodes().get(owner).address());
    }

    static Response.Topology topology(SlotMap map) {
        List<Response.Shard> shards = new ArrayList<>();
        for (int i = 0; i < map.nodes().size(); i++) {
            String address = map.nodes().get(i).address();
            for (SlotMap.Range range : map.ranges(i)) {
                shards.add(new Response.Shard(range.first(), range.last(), address));
            }
        }
        shards.sort(Comparator.comparingInt(Response.Shard::first));
        return new Response.Topology(shards);
    }
}
