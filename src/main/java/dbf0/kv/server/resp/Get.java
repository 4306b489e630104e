package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import java.util.List;

/**
 * GET key: the value as a bulk string, or null if there is none ({@code $-1} in RESP2, {@code _} in
 * RESP3). Redis answers WRONGTYPE for a key holding a list or a hash; dbf0 stores only byte
 * strings, so it never does.
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
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        ByteArrayWrapper value = context.store().get(Reply.key(args.get(1)));
        Reply.bulkOrNull(connection, out, value == null ? null : value.getArray());
        return false;
    }
}
