package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.KeyRouter;
import dbf0.kv.server.resp.KeySpec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Where a command's keys live, decided before it runs, as a Redis Cluster node decides it:
 *
 * <ul>
 *   <li>keys of two slots: {@code -CROSSSLOT} (hash tags keep keys in one slot);
 *   <li>a slot another node owns: {@code -MOVED slot host:port}, and the client updates its map;
 *   <li>a slot this node is migrating away: run if every key is still here, {@code -ASK slot
 *       host:port} if none is (the client asks the target this once, its map unchanged), {@code
 *       -TRYAGAIN} if some are;
 *   <li>a slot this node is importing: run only right after ASKING, else MOVED to the owner;
 *   <li>a command with no keys (PING, DBSIZE, SCAN, ...) runs here, on this node's keys alone.
 * </ul>
 *
 * <p>The check and the command run under the read lock of the slot's stripe (see {@link
 * ClusterState}), so a migration cannot move a key between the two. Per command this costs a CRC
 * per key, one volatile read of the map and an uncontended read lock.
 */
final class SlotRouting implements KeyRouter {

    static final byte[] CROSSSLOT =
            RespCodec.error("CROSSSLOT Keys in request don't hash to the same slot");
    static final byte[] TRYAGAIN =
            RespCodec.error("TRYAGAIN Multiple keys request during rehashing of slot");
    static final byte[] UNSERVED = RespCodec.error("CLUSTERDOWN Hash slot not served");
    static final byte[] NO_LEADER =
            RespCodec.error(
                    "CLUSTERDOWN The slot's shard has no leader now (an election, or this node is"
                            + " cut off from its peers): try again shortly");

    private final ClusterState state;

    SlotRouting(ClusterState state) {
        this.state = state;
    }

    @Override
    public boolean route(
            RespCommand command,
            List<byte[]> args,
            RespConnection connection,
            RespContext context,
            OutputBuffer out) {
        boolean asking = connection.asking();
        if (!(command instanceof Asking)) {
            connection.asking(false); // ASKING is good for the one command after it
        }
        KeySpec keys = command.keys();
        if (keys == null) {
            return command.execute(args, connection, context, out);
        }
        int last = keys.lastIn(args.size());
        int slot = -1;
        for (int i = keys.first(); i <= last; i += keys.step()) {
            int s = HashSlots.slot(args.get(i));
            if (slot >= 0 && s != slot) {
                refuse(connection, out, CROSSSLOT);
                return false;
            }
            slot = s;
        }
        Lock lock = state.readLock(slot);
        lock.lock();
        try {
            byte[] refusal =
                    state.replicated()
                            ? replicaRefusal(
                                    state.map(), slot, keys.writes(), connection.readOnly())
                            : refusal(state.map(), slot, args, keys, last, asking);
            if (refusal != null) {
                refuse(connection, out, refusal);
                return false;
            }
            return command.execute(args, connection, context, out);
        } finally {
            lock.unlock();
        }
    }

    /** Why this node does not run the command, or null if it does. */
    private byte[] refusal(
            SlotMap map, int slot, List<byte[]> args, KeySpec keys, int last, boolean asking) {
        int owner = map.owner(slot);
        if (owner == state.myself()) {
            int target = map.migrating(slot);
            if (target == SlotMap.NONE) {
                return null;
            }
            int here = present(args, keys, last);
            int total = (last - keys.first()) / keys.step() + 1;
            if (here == total) {
                return null;
            }
            return here == 0 ? redirect("ASK", slot, map.nodes().get(target)) : TRYAGAIN;
        }
        if (asking && map.importing(slot) != SlotMap.NONE) {
            int total = (last - keys.first()) / keys.step() + 1;
            return total > 1 && present(args, keys, last) < total ? TRYAGAIN : null;
        }
        return owner == SlotMap.NONE ? UNSERVED : redirect("MOVED", slot, map.nodes().get(owner));
    }

    /**
     * Why this node does not run a command on {@code slot} in a replicated cluster, or null if it
     * does: the shard's leader runs everything; a replica runs reads for a connection that sent
     * READONLY, from its own copy, and sends the rest to the leader with MOVED, as a Redis replica
     * does; a node of another shard sends them to that shard's leader. Slots never move between
     * shards here (resharding a replicated cluster is refused), so there is no ASK.
     */
    private byte[] replicaRefusal(SlotMap map, int slot, boolean writes, boolean readOnly) {
        int owner = map.owner(slot);
        if (owner == SlotMap.NONE) {
            return UNSERVED;
        }
        int shard = state.shards().shardOf(owner);
        int myShard = state.shards().shardOf(state.myself());
        int leader = state.leaderOf(shard);
        if (shard == myShard) {
            if (leader == state.myself()
                    || (readOnly && !writes && state.replication().view().servesStaleReads())) {
                return null;
            }
            return leader == SlotMap.NONE
                    ? NO_LEADER
                    : redirect("MOVED", slot, map.nodes().get(leader));
        }
        // Not heard from another shard's leader yet: send the client to a member, which knows.
        int to = leader == SlotMap.NONE ? owner : leader;
        return redirect("MOVED", slot, map.nodes().get(to));
    }

    private int present(List<byte[]> args, KeySpec keys, int last) {
        state.applySubmittedWrites(); // a write submitted to a log counts
        int here = 0;
        for (int i = keys.first(); i <= last; i += keys.step()) {
            if (state.contains(args.get(i))) {
                here++;
            }
        }
        return here;
    }

    /** {@code -MOVED 3999 127.0.0.1:6381} or {@code -ASK ...}, as Redis writes them. */
    static byte[] redirect(String kind, int slot, ClusterNode node) {
        return RespCodec.error(kind + " " + slot + " " + node.address());
    }

    /** An error in the reply's place, behind any replies still waiting for writes. */
    private static void refuse(RespConnection connection, OutputBuffer out, byte[] error) {
        connection.pending().reply(out, o -> o.put(error));
    }
}
