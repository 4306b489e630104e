package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * EXISTS key [key ...]: how many of the keys exist, as Redis answers it: a key named twice counts
 * twice.
 */
final class Exists implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("EXISTS");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        long found = 0;
        for (int i = 1; i < args.size(); i++) {
            if (context.store().contains(Reply.key(args.get(i)))) {
                found++;
            }
        }
        out.put(RespCodec.integer(found));
        return false;
    }
}
