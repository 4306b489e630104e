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
import java.util.concurrent.locks.Lock;

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
     * landing after its slot left would be acknowledged and lost). Each key's slot is computed
     * once.
     *
     * @return null once {@code work} ran, or what to answer instead (MOVED)
     */
    Response runIfOwned(Request request, Runnable work) {
        int[] slots = slots(request);
        if (slots.length == 0) {
            work.run(); // PING, RANGE: no key to own
            return null;
        }
        long stripes = 0;
        for (int slot : slots) {
            stripes |= ClusterState.stripeBit(slot);
        }
        Lock lock = state.readLockOfStripes(stripes);
        lock.lock();
        try {
            Response refusal = refusal(state.map(), slots);
            if (refusal == null) {
                work.run();
            }
            return refusal;
        } finally {
            lock.unlock();
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

    private static final int[] NO_SLOTS = {};

    /** The slots of the request's keys, in its order: none for PING, RANGE and TOPOLOGY. */
    private static int[] slots(Request request) {
        return switch (request) {
            case Request.Get get -> new int[] {HashSlots.slot(get.key().getArray())};
            case Request.Set set -> new int[] {HashSlots.slot(set.key().getArray())};
            case Request.Delete delete -> new int[] {HashSlots.slot(delete.key().getArray())};
            case Request.Batch batch -> {
                List<Request> ops = batch.ops();
                int[] slots = new int[ops.size()];
                for (int i = 0; i < slots.length; i++) {
                    slots[i] = HashSlots.slot(key(ops.get(i)).getArray());
                }
                yield slots;
            }
            // PING; RANGE, which scans this node's own keys; TOPOLOGY, answered when decoded
            default -> NO_SLOTS;
        };
    }

    private static ByteArrayWrapper key(Request op) {
        return switch (op) {
            case Request.Get get -> get.key();
            case Request.Set set -> set.key();
            case Request.Delete delete -> delete.key();
            default -> throw new IllegalArgumentException("a batch holds GET, SET and DELETE only");
        };
    }

    /**
     * MOVED (or CLUSTERDOWN) for the first slot another node serves, or null if all are served
     * here. In a replicated cluster a slot is served by its shard's leader (v2 has no READONLY:
     * every request goes to the leader).
     */
    private Response refusal(SlotMap map, int[] slots) {
        for (int slot : slots) {
            int owner = map.owner(slot);
            if (owner == SlotMap.NONE) {
                return new Response.Error(
                        "CLUSTERDOWN hash slot " + slot + " is served by no node");
            }
            int serving = serving(owner);
            if (serving == SlotMap.NONE) {
                return new Response.Error(
                        "CLUSTERDOWN hash slot " + slot + ": its shard has no leader now");
            }
            if (serving != state.myself()) {
                return new Response.Moved(slot, map.nodes().get(serving).address());
            }
        }
        return null;
    }

    /**
     * The node that serves {@code owner}'s slots: the owner itself, or, replicated, its shard's
     * leader; a shard whose leader this node has not heard of is sent to the owner, which knows,
     * unless it is this node's own shard.
     */
    private int serving(int owner) {
        if (!state.replicated()) {
            return owner;
        }
        int shard = state.shards().shardOf(owner);
        int leader = state.leaderOf(shard);
        boolean mine = shard == state.shards().shardOf(state.myself());
        return leader != SlotMap.NONE || mine ? leader : owner;
    }

    /** TOPOLOGY's answer: this node's slot map, each range at the node that serves it. */
    Response.Topology topology() {
        SlotMap map = state.map();
        List<Response.Shard> shards = new ArrayList<>();
        for (int i = 0; i < map.nodes().size(); i++) {
            int serving = serving(i);
            String address = map.nodes().get(serving == SlotMap.NONE ? i : serving).address();
            for (SlotMap.Range range : map.ranges(i)) {
                shards.add(new Response.Shard(range.first(), range.last(), address));
            }
        }
        shards.sort(Comparator.comparingInt(Response.Shard::first));
        return new Response.Topology(shards);
    }
}
