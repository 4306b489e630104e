package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * CLUSTER and its subcommands: what the cluster looks like (SLOTS, SHARDS, NODES, INFO, MYID), the
 * slot of a key (KEYSLOT), the keys of a slot (COUNTKEYSINSLOT, GETKEYSINSLOT: from the {@link
 * SlotIndex}, O(keys of the slot) each), moving slots ({@link SetSlot}), and the few bus commands
 * redis-cli sends (MEET, BUMPEPOCH, SAVECONFIG), answered as far as a cluster with a fixed list of
 * nodes can.
 */
final class ClusterCommand implements RespCommand {

    /** Each subcommand's arity, counted as Redis counts it ("CLUSTER" and the name included). */
    private static final Map<String, Integer> ARITY =
            Map.ofEntries(
                    Map.entry("SLOTS", 2),
                    Map.entry("SHARDS", 2),
                    Map.entry("NODES", 2),
                    Map.entry("MYID", 2),
                    Map.entry("INFO", 2),
                    Map.entry("KEYSLOT", 3),
                    Map.entry("COUNTKEYSINSLOT", 3),
                    Map.entry("GETKEYSINSLOT", 4),
                    Map.entry("SETSLOT", -4),
                    Map.entry("MEET", -4),
                    Map.entry("BUMPEPOCH", 2),
                    Map.entry("SAVECONFIG", 2));

    private static final byte[] NOT_INTEGER =
            RespCodec.error("ERR value is not an integer or out of range");
    private static final byte[] BAD_SLOT = RespCodec.error("ERR Invalid slot");
    private static final byte[] BAD_GETKEYS = RespCodec.error("ERR Invalid slot or number of keys");

    private final ClusterState state;

    ClusterCommand(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of("CLUSTER");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        String sub = new String(args.get(1), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        Integer arity = ARITY.get(sub);
        if (arity == null) {
            out.put(
                    RespCodec.error(
                            "ERR unknown subcommand '"
                                    + SetSlot.printable(
                                            new String(args.get(1), StandardCharsets.UTF_8))
                                    + "'. Try CLUSTER HELP."));
            return false;
        }
        if (arity >= 0 ? args.size() != arity : args.size() < -arity) {
            out.put(
                    RespCodec.error(
                            "ERR wrong number of arguments for 'cluster|"
                                    + sub.toLowerCase(Locale.ROOT)
                                    + "' command"));
            return false;
        }
        switch (sub) {
            case "SLOTS" -> {
                if (state.replicated()) {
                    ReplicaReplies.slots(state, connection, out);
                } else {
                    ClusterReplies.slots(state, connection, out);
                }
            }
            case "SHARDS" -> {
                if (state.replicated()) {
                    ReplicaReplies.shards(state, connection, out);
                } else {
                    ClusterReplies.shards(state, connection, out);
                }
            }
            case "NODES" ->
                    ClusterReplies.text(
                            connection,
                            out,
                            state.replicated()
                                    ? ReplicaReplies.nodes(state)
                                    : ClusterReplies.nodes(state));
            case "INFO" ->
                    ClusterReplies.text(
                            connection,
                            out,
                            state.replicated()
                                    ? ReplicaReplies.info(state)
                                    : ClusterReplies.info(state));
            case "MYID" -> ClusterReplies.bulk(out, state.me().id());
            case "KEYSLOT" -> out.put(RespCodec.integer(HashSlots.slot(args.get(2))));
            case "COUNTKEYSINSLOT" -> countKeys(args, out);
            case "GETKEYSINSLOT" -> getKeys(args, context, out);
            case "SETSLOT" -> out.put(SetSlot.run(state, args));
            case "MEET" -> meet(args, out);
            case "BUMPEPOCH" -> out.put(RespCodec.simple("STILL " + (state.myself() + 1)));
            case "SAVECONFIG" -> out.put(Asking.OK); // every change is saved as it is made
            default -> throw new IllegalStateException(sub);
        }
        return false;
    }

    private void countKeys(List<byte[]> args, OutputBuffer out) {
        Long slot = number(args.get(2));
        if (slot == null) {
            out.put(NOT_INTEGER);
        } else if (!HashSlots.valid(slot)) {
            out.put(BAD_SLOT);
        } else {
            out.put(RespCodec.integer(state.countKeys((int) (long) slot)));
        }
    }

    /**
     * At most {@code count} keys of the slot, and at most half the frame limit of them in bytes so
     * that the reply stays bounded: a client that asks again gets the rest.
     */
    private void getKeys(List<byte[]> args, RespContext context, OutputBuffer out) {
        Long slot = number(args.get(2));
        Long count = number(args.get(3));
        if (slot == null || count == null) {
            out.put(NOT_INTEGER);
            return;
        }
        if (!HashSlots.valid(slot) || count < 0) {
            out.put(BAD_GETKEYS);
            return;
        }
        int maxBytes = context.limits().maxFrameBytes() / 2;
        int maxKeys = (int) Math.min(count, maxBytes / 8);
        List<byte[]> keys = state.keysInSlot((int) (long) slot, maxKeys);
        long bytes = 0;
        int n = 0;
        while (n < keys.size() && bytes + keys.get(n).length + 16 <= maxBytes) {
            bytes += keys.get(n).length + 16;
            n++;
        }
        out.put(RespCodec.arrayHeader(n));
        for (int i = 0; i < n; i++) {
            ClusterReplies.bulk(out, keys.get(i));
        }
    }

    /**
     * MEET host port: Redis joins a node to the cluster by gossip. Here the nodes are fixed by
     * {@code --cluster-nodes}: meeting one of them is a no-op, any other address an error.
     */
    private void meet(List<byte[]> args, OutputBuffer out) {
        String address =
                new String(args.get(2), StandardCharsets.UTF_8)
                        + ":"
                        + new String(args.get(3), StandardCharsets.UTF_8);
        boolean listed = state.map().nodes().stream().anyMatch(n -> n.address().equals(address));
        out.put(
                listed
                        ? Asking.OK
                        : RespCodec.error(
                                "ERR dbf0 has no cluster bus: its nodes are the --cluster-nodes"
                                        + " list, which does not name "
                                        + SetSlot.printable(address)));
    }

    private static Long number(byte[] arg) {
        try {
            return Long.parseLong(new String(arg, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
