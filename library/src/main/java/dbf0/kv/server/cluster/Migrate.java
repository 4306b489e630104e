package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [KEYS key ...]: moves keys to
 * another dbf0 node, as redis-cli's reshard moves a slot's keys. The keys and their values go over
 * one RESP connection as {@link Restore}'s command ({@code DBF0-RESTORE REPLACE|NOREPLACE key value
 * ...}: a dbf0 value is a byte string, so it needs no serialized form of its own); once the target
 * has answered +OK, they are deleted here unless COPY.
 *
 * <p>The write locks of the keys' slots are held from the first read to the last delete, so no
 * write to those slots can fall in between and be lost. The connection is blocking and made per
 * call (Redis keeps one cached): the thread that runs MIGRATE, an event loop's under nio, waits for
 * the target for up to {@code timeout} ms, as Redis's single thread does.
 *
 * <p>Replies: +OK; +NOKEY when none of the keys is here; {@code -IOERR ...} when the target cannot
 * be reached or does not answer in time; {@code -ERR Target instance replied with error: ...} with
 * the target's error (BUSYKEY when a key exists there and REPLACE was not given).
 */
final class Migrate implements RespCommand {

    static final String RESTORE = "DBF0-RESTORE";
    private static final int DEFAULT_TIMEOUT_MILLIS = 1000;

    private final ClusterState state;

    Migrate(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of("MIGRATE");
    }

    @Override
    public int arity() {
        return -6;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (state.replicated()) {
            out.put(SetSlot.NOT_REPLICATED);
            return false;
        }
        String host = text(args.get(1));
        int port;
        long timeout;
        try {
            port = Integer.parseInt(text(args.get(2)));
            timeout = Long.parseLong(text(args.get(5)));
            if (Long.parseLong(text(args.get(4))) != 0) {
                out.put(RespCodec.error("ERR dbf0 has one database: destination-db must be 0"));
                return false;
            }
        } catch (NumberFormatException e) {
            out.put(RespCodec.error("ERR value is not an integer or out of range"));
            return false;
        }
        boolean copy = false;
        boolean replace = false;
        List<byte[]> keys = new ArrayList<>();
        for (int i = 6; i < args.size(); i++) {
            switch (text(args.get(i)).toUpperCase(Locale.ROOT)) {
                case "COPY" -> copy = true;
                case "REPLACE" -> replace = true;
                case "KEYS" -> {
                    if (args.get(3).length != 0) {
                        out.put(
                                RespCodec.error(
                                        "ERR When using MIGRATE KEYS option, the key argument"
                                                + " must be set to the empty string"));
                        return false;
                    }
                    keys.addAll(args.subList(i + 1, args.size()));
                    i = args.size();
                }
                case "AUTH", "AUTH2" -> {
                    out.put(RespCodec.error("ERR dbf0 has no authentication: drop AUTH"));
                    return false;
                }
                default -> {
                    out.put(RespCodec.error("ERR syntax error"));
                    return false;
                }
            }
        }
        if (keys.isEmpty()) {
            keys.add(args.get(3));
        }
        int millis =
                (int) Math.min(Integer.MAX_VALUE, timeout <= 0 ? DEFAULT_TIMEOUT_MILLIS : timeout);
        List<Lock> locks = writeLocks(keys);
        try {
            out.put(move(host, port, millis, keys, copy, replace, context));
        } finally {
            locks.reversed().forEach(Lock::unlock);
        }
        return false;
    }

    /**
     * The write locks of the keys' stripes, taken in stripe order so that two MIGRATEs agree, then
     * that of the commands on several stripes.
     */
    private List<Lock> writeLocks(List<byte[]> keys) {
        TreeSet<Integer> stripes = new TreeSet<>();
        for (byte[] key : keys) {
            stripes.add(HashSlots.slot(key) % ClusterState.STRIPES);
        }
        List<Lock> locks = new ArrayList<>();
        for (int stripe : stripes) {
            Lock lock = state.writeLock(stripe);
            lock.lock();
            locks.add(lock);
        }
        Lock many = state.manyStripesWriteLock(); // and the commands on several stripes' keys
        many.lock();
        locks.add(many);
        return locks;
    }

    private byte[] move(
            String host,
            int port,
            int millis,
            List<byte[]> keys,
            boolean copy,
            boolean replace,
            RespContext context) {
        state.applySubmittedWrites(); // those submitted before the locks were taken
        // Sent a batch at a time, so that at most half a frame of values is held here at once.
        int maxBytes = context.limits().maxFrameBytes() / 2;
        List<byte[]> found = new ArrayList<>();
        List<byte[]> batch = new ArrayList<>();
        long bytes = 0;
        PeerLink link = null;
        try {
            for (byte[] key : keys) {
                ByteArrayWrapper value = state.store().get(new ByteArrayWrapper(key));
                if (value == null) {
                    continue;
                }
                if (!batch.isEmpty() && bytes + key.length + value.length() + 32 > maxBytes) {
                    link = link != null ? link : new PeerLink(host, port, millis);
                    byte[] refused = send(link, batch, replace);
                    if (refused != null) {
                        return refused;
                    }
                    batch.clear();
                    bytes = 0;
                }
                batch.add(key);
                batch.add(value.getArray());
                bytes += key.length + value.length() + 32;
                found.add(key);
            }
            if (found.isEmpty()) {
                return RespCodec.simple("NOKEY");
            }
            link = link != null ? link : new PeerLink(host, port, millis);
            byte[] refused = send(link, batch, replace);
            if (refused != null) {
                return refused;
            }
        } catch (IOException e) {
            return RespCodec.error(
                    "IOERR error or timeout reading to target instance: "
                            + SetSlot.printable(String.valueOf(e.getMessage())));
        } finally {
            closeQuietly(link);
        }
        if (!copy) {
            List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
            for (byte[] key : found) {
                deletes.add(state.store().deleteAsync(new ByteArrayWrapper(key)));
            }
            state.store().flush();
            try {
                CompletableFuture.allOf(deletes.toArray(CompletableFuture<?>[]::new)).join();
            } catch (RuntimeException e) {
                return RespCodec.error(
                        "ERR the keys were copied but not deleted here: "
                                + SetSlot.printable(String.valueOf(e.getMessage())));
            }
        }
        return Asking.OK;
    }

    /** Sends one {@link Restore} command; returns the error to answer, or null if it was stored. */
    private static byte[] send(PeerLink link, List<byte[]> pairs, boolean replace)
            throws IOException {
        List<byte[]> command = new ArrayList<>(pairs.size() + 2);
        command.add(RESTORE.getBytes(StandardCharsets.US_ASCII));
        command.add((replace ? "REPLACE" : "NOREPLACE").getBytes(StandardCharsets.US_ASCII));
        command.addAll(pairs);
        PeerLink.Answer answer = link.call(command);
        return answer.ok()
                ? null
                : RespCodec.error(
                        "ERR Target instance replied with error: "
                                + SetSlot.printable(answer.text()));
    }

    private static void closeQuietly(PeerLink link) {
        if (link != null) {
            try {
                link.close();
            } catch (IOException e) {
                // the keys were sent or the error is already answered
            }
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
