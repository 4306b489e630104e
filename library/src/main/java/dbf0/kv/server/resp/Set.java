package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import java.util.List;
import java.util.Locale;

/**
 * SET key value: stores the value, answers {@code +OK}. Redis also takes options (EX, PX, NX, XX,
 * KEEPTTL, GET); dbf0 has no expiry and no conditional writes, so it answers a syntax error for any
 * option rather than silently ignoring it. Keys and values over the server's limits are refused
 * with an error, where Redis's only bound is 512 MB.
 */
final class Set implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("SET");
    }

    @Override
    public int arity() {
        return -3;
    }

    @Override
    public KeySpec keys() {
        return KeySpec.WRITES_ONE;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        byte[] error =
                args.size() > 3
                        ? RespCodec.error(
                                "ERR syntax error: dbf0 supports plain SET key value, without"
                                        + " options such as "
                                        + Reply.lower(args.get(3)).toUpperCase(Locale.ROOT))
                        : Reply.overLimit(args, 1, context);
        if (error != null) {
            Reply.now(connection, out, error);
        } else {
            Reply.whenDone(
                    connection,
                    context,
                    context.store()
                            .putAsync(Reply.key(args.get(1)), new ByteArrayWrapper(args.get(2))),
                    1,
                    (o, stored) -> o.put(Reply.OK));
        }
        return false;
    }

    @Override
    public boolean defersReply() {
        return true;
    }
}
