package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * DBF0-RESTORE REPLACE|NOREPLACE key value [key value ...]: the receiving half of {@link Migrate},
 * one node to another. It stores the pairs if every key's slot is this node's or one it is
 * importing (as RESTORE-ASKING does in Redis: no ASKING needed), and answers +OK once the writes
 * are done (durable, under a log). With NOREPLACE a key that exists already refuses the whole
 * command: {@code -BUSYKEY Target key name already exists.}, Redis's error, which redis-cli's
 * reshard recognises.
 */
final class Restore implements RespCommand {

    static final byte[] BUSYKEY = RespCodec.error("BUSYKEY Target key name already exists.");

    private final ClusterState state;

    Restore(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of(Migrate.RESTORE);
    }

    @Override
    public int arity() {
        return -4;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        byte[] refusal = check(args, context);
        if (refusal != null) {
            connection.pending().reply(out, o -> o.put(refusal));
            return false;
        }
        boolean replace = mode(args.get(1)) == 1;
        TreeSet<Integer> stripes = new TreeSet<>();
        for (int i = 2; i < args.size(); i += 2) {
            stripes.add(HashSlots.slot(args.get(i)) % ClusterState.STRIPES);
        }
        List<Lock> locks = new ArrayList<>();
        for (int stripe : stripes) {
            Lock lock = state.readLock(stripe);
            lock.lock();
            locks.add(lock);
        }
        try {
            SlotMap map = state.map();
            for (int i = 2; i < args.size(); i += 2) {
                int slot = HashSlots.slot(args.get(i));
                if (map.owner(slot) != state.myself() && map.importing(slot) == SlotMap.NONE) {
                    byte[] error =
                            RespCodec.error(
                                    "ERR slot " + slot + " is neither served nor imported here");
                    connection.pending().reply(out, o -> o.put(error));
                    return false;
                }
                if (!replace && state.contains(args.get(i))) {
                    connection.pending().reply(out, o -> o.put(BUSYKEY));
                    return false;
                }
            }
            CompletableFuture<?>[] writes = new CompletableFuture<?>[(args.size() - 2) / 2];
            for (int i = 2; i < args.size(); i += 2) {
                writes[(i - 2) / 2] =
                        context.store()
                                .putAsync(
                                        new ByteArrayWrapper(args.get(i)),
                                        new ByteArrayWrapper(args.get(i + 1)));
            }
            connection
                    .pending()
                    .add(CompletableFuture.allOf(writes), writes.length, Restore::answer);
        } finally {
            locks.reversed().forEach(Lock::unlock);
        }
        return false;
    }

    private static void answer(OutputBuffer o, Object done, Throwable failure) {
        o.put(
                failure == null
                        ? Asking.OK
                        : RespCodec.error(
                                "ERR not stored: " + SetSlot.printable("" + failure.getMessage())));
    }

    /** The error for a malformed command, or null. */
    private static byte[] check(List<byte[]> args, RespContext context) {
        if (args.size() % 2 != 0 || mode(args.get(1)) < 0) {
            return RespCodec.error(
                    "ERR usage: "
                            + Migrate.RESTORE
                            + " REPLACE|NOREPLACE key value [key value ...]");
        }
        for (int i = 2; i < args.size(); i += 2) {
            if (args.get(i).length > context.limits().maxKeyBytes()
                    || args.get(i + 1).length > context.limits().maxValueBytes()) {
                return RespCodec.error("ERR a key or value is over this node's limits");
            }
        }
        return null;
    }

    /** 1 for REPLACE, 0 for NOREPLACE, -1 for anything else. */
    private static int mode(byte[] arg) {
        String m = new String(arg, StandardCharsets.US_ASCII);
        return m.equalsIgnoreCase("REPLACE") ? 1 : m.equalsIgnoreCase("NOREPLACE") ? 0 : -1;
    }

    @Override
    public boolean defersReply() {
        return true;
    }
}
