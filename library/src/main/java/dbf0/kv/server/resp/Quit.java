package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/**
 * QUIT: answers {@code +OK}, then the server closes the connection once the reply is written, as
 * Redis does. Arguments are ignored.
 */
final class Quit implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("QUIT");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        out.put(Reply.OK);
        return true;
    }
}
