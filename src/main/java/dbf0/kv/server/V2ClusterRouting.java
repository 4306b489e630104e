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

    /**
     * Runs {@code work} if this node owns every key of {@code request}, holding the read locks of
     * their slots' stripes across the check and the work, as RESP commands do: MIGRATE and SETSLOT
     * take a stripe's write lock, so no key can move between the check and the write (a write
     * landing after its slot left would be acknowledged and lost).
     *
     * @return null once {@code work} ran, or what to answer instead (MOVED)
     */
    Response runIfOwned(Request request, Runnable work) {
        long stripes = stripes(request);
        state.readLockStripes(stripes);
        try {
            Response refusal = answer(request);
            if (refusal == null) {
                work.run();
            }
            return refusal;
        } finally {
            state.readUnlockStripes(stripes);
        }
    }

    /**
     * {@link #runIfOwned(Request, Runnable)} on a cluster node; on a standalone server ({@code
     * cluster} null) runs {@code work}.
     */
    static Response runIfOwned(V2ClusterRouting cluster, Request request, Runnable work) {
        if (cluster == null) {
            work.run();
            return null;
        }
        return cluster.runIfOwned(request, work);
    }

    private static long stripes(Request request) {
        return switch (request) {
            case Request.Get get -> stripe(get.key());
            case Request.Set set -> stripe(set.key());
            case Request.Delete delete -> stripe(delete.key());
            case Request.Batch batch -> {
                long mask = 0;
                for (Request op : batch.ops()) {
                    mask |= stripes(op);
                }
                yield mask;
            }
            default -> 0L; // no key: PING, RANGE, TOPOLOGY
        };
    }

    private static long stripe(ByteArrayWrapper key) {
        return ClusterState.stripeBit(HashSlots.slot(key.getArray()));
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
