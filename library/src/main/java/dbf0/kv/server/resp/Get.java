package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import java.util.List;

/**
 * GET key: the value as a bulk string, or null if there is none ({@code $-1} in RESP2, {@code _} in
 * RESP3). On an event loop over a store on disk the read goes off the loop and the reply is queued
 * in order ({@link RespContext#asyncReads()}). Redis answers WRONGTYPE for a key holding a list or
 * a hash; dbf0 stores only byte strings, so it never does.
 */
final class Get implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("GET");
    }

    @Override
    public int arity() {
        return 2;
    }

    @Override
    public KeySpec keys() {
        return KeySpec.READS_ONE;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        ByteArrayWrapper key = Reply.key(args.get(1));
        if (context.asyncReads()) {
            Reply.whenRead(
                    connection,
                    out,
                    context.store().getAsync(key),
                    1,
                    (o, value) -> Reply.bulkOrNull(connection, o, bytes(value)));
            return false;
        }
        Reply.bulkOrNull(connection, out, bytes(context.store().get(key)));
        return false;
    }

    private static byte[] bytes(ByteArrayWrapper value) {
        return value == null ? null : value.getArray();
    }
}
