package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.util.List;

/**
 * ASKING: the client was sent here by {@code -ASK}, so the next command may touch a slot this node
 * is importing (see {@link SlotRouting}). Only that one command: the flag is cleared after it.
 */
final class Asking implements RespCommand {

    static final byte[] OK = RespCodec.simple("OK");

    @Override
    public List<String> names() {
        return List.of("ASKING");
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        connection.asking(true);
        out.put(OK);
        return false;
    }
}
