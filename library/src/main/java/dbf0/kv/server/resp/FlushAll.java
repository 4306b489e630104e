package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/**
 * FLUSHALL and FLUSHDB: remove every key, answer {@code +OK}. dbf0 has one database, so the two are
 * the same. Arguments, such as Redis's ASYNC and SYNC, are ignored: the store is cleared before the
 * reply either way.
 */
final class FlushAll implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("FLUSHALL", "FLUSHDB");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        Reply.whenDone(
                connection,
                context,
                context.store().clearAsync(),
                1,
                (o, cleared) -> o.put(Reply.OK));
        return false;
    }

    @Override
    public boolean defersReply() {
        return true;
    }
}
