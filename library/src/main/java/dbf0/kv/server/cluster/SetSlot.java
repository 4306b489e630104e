package dbf0.kv.server.cluster;

import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.Lock;

/**
 * CLUSTER SETSLOT slot MIGRATING|IMPORTING|NODE node-id, and SETSLOT slot STABLE: the steps of
 * moving a slot, as redis-cli's reshard sends them.
 *
 * <ol>
 *   <li>the target: {@code IMPORTING source}; the source: {@code MIGRATING target};
 *   <li>the source, until no key is left: GETKEYSINSLOT, then MIGRATE of those keys;
 *   <li>{@code NODE target} to every node, the two first. The source refuses it while it still
 *       holds a key of the slot, the target ends its import, any other node just learns the new
 *       owner.
 * </ol>
 *
 * <p>A Redis node would also spread the change by gossip; a dbf0 node learns it only from this
 * command, and redis-cli does send it to every master. Each change runs under the slot's write lock
 * and is saved to the nodes file before the reply.
 */
final class SetSlot {

    static final byte[] SYNTAX =
            RespCodec.error(
                    "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
    static final byte[] BAD_SLOT = RespCodec.error("ERR Invalid or out of range slot");

    private SetSlot() {}

    /**
     * Slots stay with their shards in a replicated cluster: moving one would have to go through two
     * shards' logs at once, which dbf0 does not do.
     */
    static final byte[] NOT_REPLICATED =
            RespCodec.error(
                    "ERR resharding a replicated cluster is not supported: each shard's slots are"
                            + " fixed by --cluster-nodes and --cluster-replicas");

    /** Runs {@code CLUSTER SETSLOT ...}; returns the reply. */
    static byte[] run(ClusterState state, List<byte[]> args) {
        if (state.replicated()) {
            return NOT_REPLICATED;
        }
        int slot = parseSlot(args.get(2));
        if (slot < 0) {
            return BAD_SLOT;
        }
        String action = new String(args.get(3), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        boolean withNode = !action.equals("STABLE");
        if (args.size() != (withNode ? 5 : 4)) {
            return SYNTAX;
        }
        String id = withNode ? new String(args.get(4), StandardCharsets.UTF_8) : null;
        int node = withNode ? state.map().indexOf(id) : SlotMap.NONE;
        if (withNode && node == SlotMap.NONE) {
            return RespCodec.error(
                    (action.equals("NODE") ? "ERR Unknown node " : "ERR I don't know about node ")
                            + printable(id));
        }
        Lock lock = state.writeLock(slot);
        Lock many = state.manyStripesWriteLock();
        lock.lock();
        many.lock();
        try {
            return change(state, slot, action, node);
        } finally {
            many.unlock();
            lock.unlock();
        }
    }

    private static byte[] change(ClusterState state, int slot, String action, int node) {
        int me = state.myself();
        int owner = state.map().owner(slot);
        switch (action) {
            case "MIGRATING" -> {
                if (owner != me) {
                    return RespCodec.error("ERR I'm not the owner of hash slot " + slot);
                }
                if (node == me) {
                    return RespCodec.error("ERR a slot cannot migrate to its own owner");
                }
                state.update(m -> m.withMigrating(slot, node));
            }
            case "IMPORTING" -> {
                if (owner == me) {
                    return RespCodec.error("ERR I'm already the owner of hash slot " + slot);
                }
                if (node == me) {
                    return RespCodec.error("ERR a node cannot import a slot from itself");
                }
                state.update(m -> m.withImporting(slot, node));
            }
            case "STABLE" ->
                    state.update(
                            m ->
                                    m.withMigrating(slot, SlotMap.NONE)
                                            .withImporting(slot, SlotMap.NONE));
            case "NODE" -> {
                if (owner == me && node != me && state.countKeys(slot) > 0) {
                    return RespCodec.error(
                            "ERR Can't assign hashslot "
                                    + slot
                                    + " to a different node while I still hold keys for this"
                                    + " hash slot.");
                }
                state.update(
                        m ->
                                m.withOwner(slot, node)
                                        .withMigrating(slot, SlotMap.NONE)
                                        .withImporting(slot, SlotMap.NONE));
            }
            default -> {
                return SYNTAX;
            }
        }
        return Asking.OK;
    }

    /** The slot an argument names, or -1 if it names none. */
    static int parseSlot(byte[] arg) {
        try {
            long slot = Long.parseLong(new String(arg, StandardCharsets.UTF_8));
            return HashSlots.valid(slot) ? (int) slot : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static String printable(String s) {
        String cut = s.length() > 64 ? s.substring(0, 64) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
