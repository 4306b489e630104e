package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * COMMAND [subcommand ...] (the class is not called Command, which would read as "any command"):
 * Redis describes its commands (COMMAND, COMMAND DOCS, COMMAND COUNT, ...), which redis-cli asks
 * for when it starts. dbf0 answers an empty array to all of them: nothing to describe. In RESP3,
 * COMMAND DOCS is an empty map instead, since Redis answers it with a map there and a client may
 * decode it as one.
 */
final class CommandInfo implements RespCommand {

    private static final byte[] EMPTY_ARRAY = RespCodec.arrayHeader(0);

    @Override
    public List<String> names() {
        return List.of("COMMAND");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        boolean docs = args.size() > 1 && Reply.lower(args.get(1)).equals("docs");
        if (docs) {
            Reply.mapHeader(connection, out, 0);
        } else {
            out.put(EMPTY_ARRAY);
        }
        return false;
    }
}
