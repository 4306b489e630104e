package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * DBSIZE: the number of keys. Redis refuses arguments; dbf0 ignores them, as it always has. With a
 * concurrent store the count is approximate while writers are busy. A store on disk counts by
 * reading every table (see {@link dbf0.kv.storage.Store#size}), so there the count runs off the
 * event loop ({@link Reply#offLoop}) and the reply waits in its place in the connection's order.
 */
final class DbSize implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("DBSIZE");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (context.asyncReads()) {
            Reply.whenRead(
                    connection,
                    out,
                    Reply.offLoop(() -> (long) context.store().size()),
                    1,
                    (o, keys) -> o.put(RespCodec.integer(keys)));
            return false;
        }
        out.put(RespCodec.integer(context.store().size()));
        return false;
    }
}
