package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * SELECT index: Redis switches the connection to one of its 16 databases. dbf0 has only database 0:
 * SELECT 0 answers {@code +OK}, anything else (a wrong number of arguments too) an out-of-range
 * error.
 */
final class Select implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("SELECT");
    }

    @Override
    public int arity() {
        return -1; // every other shape gets the out-of-range error below
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (args.size() == 2 && new String(args.get(1), StandardCharsets.US_ASCII).equals("0")) {
            out.put(Reply.OK);
        } else {
            out.put(RespCodec.error("ERR DB index is out of range: dbf0 has only database 0"));
        }
        return false;
    }
}
