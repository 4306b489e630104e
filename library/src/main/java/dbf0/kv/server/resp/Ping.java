package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * PING [message]: Redis answers {@code +PONG}, or the message as a bulk string. dbf0 does the same
 * (there is no pub/sub mode, where Redis would answer an array instead).
 */
final class Ping implements RespCommand {

    private static final byte[] PONG = RespCodec.simple("PONG");

    @Override
    public List<String> names() {
        return List.of("PING");
    }

    @Override
    public int arity() {
        return -1; // at most two as well, checked below, as Redis does
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        switch (args.size()) {
            case 1 -> out.put(PONG);
            case 2 -> Reply.bulk(out, args.get(1));
            default -> Reply.wrongArgs(out, "ping");
        }
        return false;
    }
}
