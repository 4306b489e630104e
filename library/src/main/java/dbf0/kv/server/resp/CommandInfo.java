package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

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

    /**
     * The table, built on first use from the standard commands' {@link RespCommand#keys()}: a
     * holder class, since the standard list holds this command and is not built when it is.
     */
    private static final class Tables {
        static final byte[] RESP2 = table(false);
        static final byte[] RESP3 = table(true);
    }

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
            out.put(connection.resp3() ? Tables.RESP3 : Tables.RESP2);
        } else {
            out.put(EMPTY_ARRAY);
        }
        return false;
    }

    private static byte[] table(boolean resp3) {
        List<RespCommand> keyed =
                RespCommands.standard().all().stream().filter(c -> c.keys() != null).toList();
        StringBuilder b = new StringBuilder("*").append(keyed.size()).append("\r\n");
        for (RespCommand c : keyed) {
            String name = c.names().get(0).toLowerCase(Locale.ROOT);
            KeySpec keys = c.keys();
            b.append("*7\r\n$").append(name.length()).append("\r\n").append(name).append("\r\n");
            b.append(':').append(c.arity()).append("\r\n");
            b.append(resp3 ? "~1\r\n+" : "*1\r\n+");
            b.append(keys.writes() ? "write" : "readonly").append("\r\n");
            b.append(':').append(keys.first()).append("\r\n:").append(keys.last()).append("\r\n:");
            b.append(keys.step()).append("\r\n*0\r\n");
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
