package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/** ECHO message: answers the message as a bulk string, as Redis does. */
final class Echo implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("ECHO");
    }

    @Override
    public int arity() {
        return 2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        Reply.bulk(out, args.get(1));
        return false;
    }
}
