package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * HELLO [protover [AUTH username password] [SETNAME name]]: switches the connection to RESP2 or
 * RESP3 and describes the server, as Redis 6 and later do. Client libraries send HELLO 3 first when
 * they connect (redis-py 8, Jedis 8 and Lettuce 7 all do by default), so this is what lets them
 * speak RESP3 to dbf0.
 *
 * <p>The reply is Redis's seven fields: server, version, proto, id, mode, role, modules; a map in
 * the protocol just chosen (a flat array of keys and values in RESP2). HELLO without a version
 * describes the server in the connection's current protocol. Every argument is checked before
 * anything changes: a bad version, an unknown option, AUTH or a bad name leaves the connection as
 * it was.
 *
 * <p>dbf0 has no users or passwords, so AUTH is an error that says so rather than a silent success:
 * a client that was given a password believes it is talking to a server that checks it. Clients
 * send AUTH only when they were given credentials.
 */
final class Hello implements RespCommand {

    private static final byte[] NOPROTO = RespCodec.error("NOPROTO unsupported protocol version");
    private static final byte[] NOT_A_NUMBER =
            RespCodec.error("ERR Protocol version is not an integer or out of range");
    static final byte[] NO_AUTH =
            RespCodec.error(
                    "ERR dbf0 has no authentication: it has no users or passwords, "
                            + "so AUTH cannot succeed; connect without credentials");

    @Override
    public List<String> names() {
        return List.of("HELLO");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        int version = connection.protocol();
        if (args.size() > 1) {
            long asked;
            try {
                asked = Long.parseLong(new String(args.get(1), StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                out.put(NOT_A_NUMBER);
                return false;
            }
            if (asked != 2 && asked != 3) {
                out.put(NOPROTO);
                return false;
            }
            version = (int) asked;
        }
        byte[] name = null;
        for (int i = 2; i < args.size(); i++) {
            String option = Reply.lower(args.get(i));
            int more = args.size() - 1 - i;
            if (option.equals("auth") && more >= 2) {
                out.put(NO_AUTH);
                return false;
            } else if (option.equals("setname") && more >= 1) {
                name = args.get(++i);
                if (!Client.validName(name)) {
                    out.put(Client.BAD_NAME);
                    return false;
                }
            } else {
                out.put(
                        RespCodec.error(
                                "ERR Syntax error in HELLO option '"
                                        + new String(args.get(i), StandardCharsets.UTF_8)
                                        + "'"));
                return false;
            }
        }
        if (name != null) {
            connection.name(name);
        }
        connection.protocol(version);
        // In the protocol just chosen, as Redis does: the reply to HELLO 3 is already RESP3.
        Reply.mapHeader(connection, out, 7);
        Reply.bulk(out, bytes("server"));
        Reply.bulk(out, bytes("dbf0"));
        Reply.bulk(out, bytes("version"));
        Reply.bulk(out, bytes(RespInfo.REDIS_VERSION));
        Reply.bulk(out, bytes("proto"));
        out.put(RespCodec.integer(version));
        Reply.bulk(out, bytes("id"));
        out.put(RespCodec.integer(connection.id()));
        Reply.bulk(out, bytes("mode"));
        Reply.bulk(out, bytes(context.router() == null ? "standalone" : "cluster"));
        Reply.bulk(out, bytes("role"));
        Reply.bulk(out, bytes("master")); // Redis's word for a server that takes writes
        Reply.bulk(out, bytes("modules"));
        out.put(RespCodec.arrayHeader(0));
        return false;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
