package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE string]: Redis's cursor iteration over the keys,
 * over every store, hash maps included. The reply is Redis's: an array of the next cursor (a
 * decimal string, "0" when the iteration is done) and an array of keys.
 *
 * <p>What Redis promises holds ({@link HashOrderPage} says how): a full iteration, from cursor 0
 * until "0" comes back, returns every key that was there the whole time; a key written or removed
 * meanwhile may or may not be; COUNT is a hint (default 10); MATCH is a glob ({@link KeyGlob}),
 * applied before COUNT, so a page holds up to COUNT matching keys rather than being thinned after.
 * Unlike Redis, a call walks the whole store: O(n) per call.
 *
 * <p>Bounds: COUNT is capped at {@code maxBatchOps} (100,000 by default) and the reply at {@code
 * maxFrameBytes} (16 MiB); a page cut short by either simply ends earlier, with a cursor that
 * resumes where it stopped. dbf0 holds only strings, so TYPE string changes nothing and any other
 * TYPE is refused with an error rather than answered with a page that could never hold a key.
 */
final class Scan implements RespCommand {

    private static final int DEFAULT_COUNT = 10;

    /** The two-element array, the cursor's bulk header and the keys' array header, at most. */
    private static final int REPLY_OVERHEAD = 64;

    @Override
    public List<String> names() {
        return List.of("SCAN");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(new String(args.get(1), StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            out.put(RespCodec.error("ERR invalid cursor"));
            return false;
        }
        KeyGlob match = null;
        long count = DEFAULT_COUNT;
        for (int i = 2; i < args.size(); i += 2) {
            String option = Reply.lower(args.get(i));
            if (i + 1 >= args.size()) {
                out.put(RespCodec.error("ERR syntax error"));
                return false;
            }
            byte[] value = args.get(i + 1);
            switch (option) {
                case "match" -> match = KeyGlob.unlessAll(value);
                case "count" -> {
                    try {
                        count = Long.parseLong(new String(value, StandardCharsets.US_ASCII));
                    } catch (NumberFormatException e) {
                        out.put(RespCodec.error("ERR value is not an integer or out of range"));
                        return false;
                    }
                    if (count < 1) {
                        out.put(RespCodec.error("ERR syntax error"));
                        return false;
                    }
                }
                case "type" -> {
                    if (!Reply.lower(value).equals("string")) {
                        out.put(
                                RespCodec.error(
                                        "ERR dbf0 holds only string values: SCAN TYPE "
                                                + Reply.lower(value)
                                                + " is not supported (TYPE string is)"));
                        return false;
                    }
                }
                default -> {
                    out.put(RespCodec.error("ERR syntax error"));
                    return false;
                }
            }
        }
        int capped = (int) Math.min(count, context.limits().maxBatchOps());
        long maxBytes = context.limits().maxFrameBytes() - REPLY_OVERHEAD;
        KeyGlob pattern = match;
        if (context.asyncReads()) { // a store on disk: the walk reads every table, off the loop
            Reply.whenRead(
                    connection,
                    out,
                    Reply.offLoop(
                            () ->
                                    HashOrderPage.read(
                                            context.store(), cursor, pattern, capped, maxBytes)),
                    1,
                    Scan::write);
            return false;
        }
        write(out, HashOrderPage.read(context.store(), cursor, pattern, capped, maxBytes));
        return false;
    }

    private static void write(OutputBuffer out, HashOrderPage.Page page) {
        out.put(RespCodec.arrayHeader(2));
        Reply.bulk(out, Long.toUnsignedString(page.next()).getBytes(StandardCharsets.US_ASCII));
        out.put(RespCodec.arrayHeader(page.keys().size()));
        for (byte[] key : page.keys()) {
            Reply.bulk(out, key);
        }
    }
}
