package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * COMMAND [subcommand ...] (the class is not called Command, which would read as "any command"):
 * Redis describes its commands (COMMAND, COMMAND DOCS, COMMAND COUNT, ...), which redis-cli asks
 * for when it starts. dbf0 answers an empty array to all of them: nothing to describe. In RESP3,
 * COMMAND DOCS is an empty map instead, since Redis answers it with a map there and a client may
 * decode it as one.
 *
 * <p>On a cluster node, plain COMMAND lists the commands that take keys, each with Redis's first
 * seven fields (name, arity, flags, first key, last key, key step, ACL categories): a cluster
 * client such as redis-py's finds a command's keys, and so its slot, from them, and refuses a
 * command it finds no entry for. Flags are a RESP3 set or a RESP2 array, as Redis sends them.
 */
final class CommandInfo implements RespCommand {

    private static final byte[] EMPTY_ARRAY = RespCodec.arrayHeader(0);

    /** name, arity, flag, first key, last key, step: the commands dbf0 has that take keys. */
    private static final Object[][] KEYED = {
        {"get", 2, "readonly", 1, 1, 1},
        {"set", -3, "write", 1, 1, 1},
        {"del", -2, "write", 1, -1, 1},
        {"exists", -2, "readonly", 1, -1, 1},
        {"mget", -2, "readonly", 1, -1, 1},
        {"mset", -3, "write", 1, -1, 2},
    };

    private static final byte[] TABLE2 = table(false);
    private static final byte[] TABLE3 = table(true);

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
        } else if (args.size() == 1 && context.router() != null) {
            out.put(connection.resp3() ? TABLE3 : TABLE2);
        } else {
            out.put(EMPTY_ARRAY);
        }
        return false;
    }

    private static byte[] table(boolean resp3) {
        StringBuilder b = new StringBuilder("*").append(KEYED.length).append("\r\n");
        for (Object[] c : KEYED) {
            String name = (String) c[0];
            b.append("*7\r\n$").append(name.length()).append("\r\n").append(name).append("\r\n");
            b.append(':').append(c[1]).append("\r\n");
            b.append(resp3 ? "~1\r\n+" : "*1\r\n+").append(c[2]).append("\r\n");
            b.append(':').append(c[3]).append("\r\n:").append(c[4]).append("\r\n:");
            b.append(c[5]).append("\r\n*0\r\n");
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
