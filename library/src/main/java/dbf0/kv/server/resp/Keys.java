package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.storage.Store;
import java.util.List;

/**
 * KEYS pattern: every key that matches a glob ({@link KeyGlob}, the matcher of SCAN's MATCH), as an
 * array of bulk strings, in RESP2 and RESP3 alike, as Redis answers it. The order is the store's
 * own: hash order for a hash map, key order for a sorted map or the LSM store.
 *
 * <p>The cost is Redis's: one walk of every key ({@link Store#forEach}), O(n) whatever the pattern
 * matches, and nothing else runs on the thread meanwhile. Over a store on disk the walk reads every
 * table, so there it runs off the event loop ({@link Reply#offLoop}) as SCAN does, and its reply
 * waits in its place in the connection's order.
 *
 * <p>Unlike Redis, the reply is bounded, as MGET's is: the matching keys are gathered already
 * encoded, and once they would pass {@code maxFrameBytes} (16 MiB by default) the walk stops and
 * the answer is an error that points to SCAN. So a KEYS costs at most that much memory, not a copy
 * of every key of the store.
 */
final class Keys implements RespCommand {

    /** Stops a walk whose reply has grown past its bound; thrown without a stack trace. */
    private static final class Full extends RuntimeException {
        Full() {
            super(null, null, false, false);
        }
    }

    private static final Full FULL = new Full();

    /**
     * The matching keys, each already a bulk string back to back in {@code bulks}, or, when they
     * would not fit the bound, {@code bulks} null.
     */
    private record Found(int count, byte[] bulks) {}

    @Override
    public List<String> names() {
        return List.of("KEYS");
    }

    @Override
    public int arity() {
        return 2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        KeyGlob glob = KeyGlob.unlessAll(args.get(1));
        int maxBytes = context.limits().maxFrameBytes();
        if (context.asyncReads()) { // a store on disk: the walk reads every table, off the loop
            Reply.whenRead(
                    connection,
                    out,
                    Reply.offLoop(() -> find(context.store(), glob, maxBytes)),
                    1,
                    (o, found) -> write(o, found, maxBytes));
            return false;
        }
        write(out, find(context.store(), glob, maxBytes), maxBytes);
        return false;
    }

    /** Walks the store for the keys {@code glob} (null: all) matches, within {@code maxBytes}. */
    private static Found find(Store store, KeyGlob glob, int maxBytes) {
        OutputBuffer bulks = new OutputBuffer(256);
        int[] count = new int[1];
        // The array header is written in front of the keys: at most 13 bytes ("*2147483647\r\n").
        long room = maxBytes - 13L;
        try {
            store.forEach(
                    (key, value) -> {
                        byte[] k = key.getArray();
                        if (glob != null && !glob.matches(k)) {
                            return;
                        }
                        if (bulks.pending() + (long) RespCodec.bulkSize(k) > room) {
                            throw FULL;
                        }
                        Reply.bulk(bulks, k);
                        count[0]++;
                    });
        } catch (Full full) {
            return new Found(count[0], null);
        }
        return new Found(count[0], bulks.toByteArray());
    }

    private static void write(OutputBuffer out, Found found, int maxBytes) {
        if (found.bulks() == null) {
            out.put(
                    RespCodec.error(
                            "ERR KEYS reply would exceed "
                                    + maxBytes
                                    + " bytes; use SCAN with MATCH and COUNT to read the keys"
                                    + " in pages"));
            return;
        }
        out.put(RespCodec.arrayHeader(found.count()));
        out.put(found.bulks());
    }
}
