package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * CLIENT subcommand: Redis has many (LIST, KILL, TRACKING, ...). dbf0 answers the ones client
 * libraries send on connecting, and the two that read back what those set:
 *
 * <ul>
 *   <li>SETNAME name: keeps the name for this connection ({@code +OK}); an empty name removes it.
 *   <li>GETNAME: the name, or null.
 *   <li>ID: this connection's id, the one HELLO reports.
 *   <li>SETINFO LIB-NAME|LIB-VER value: {@code +OK}. Redis shows these in CLIENT LIST, which dbf0
 *       does not have, so they are not kept.
 *   <li>MAINT_NOTIFICATIONS: an error, as from open-source Redis, where the command does not exist
 *       either (it belongs to Redis Software and Redis Cloud, which warn clients before moving a
 *       shard). redis-py 8 and Lettuce 7 send it on connecting and, in their default "auto" mode,
 *       take the error to mean "no notifications" and go on; dbf0 never moves, so there would be
 *       nothing to notify.
 * </ul>
 *
 * Any other subcommand is an error naming the ones there are.
 */
final class Client implements RespCommand {

    static final byte[] NO_MAINT_NOTIFICATIONS =
            RespCodec.error(
                    "ERR dbf0 sends no maintenance notifications: it never moves or fails over"
                            + " (CLIENT MAINT_NOTIFICATIONS is not supported)");
    static final byte[] BAD_NAME =
            RespCodec.error(
                    "ERR Client names cannot contain spaces, newlines or special characters.");

    @Override
    public List<String> names() {
        return List.of("CLIENT");
    }

    @Override
    public int arity() {
        return -1; // a missing subcommand gets the unknown-subcommand error below
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        String sub = args.size() > 1 ? Reply.lower(args.get(1)) : "";
        switch (sub) {
            case "setname" -> {
                if (args.size() != 3) {
                    Reply.wrongArgs(out, "client|setname");
                } else if (!validName(args.get(2))) {
                    out.put(BAD_NAME);
                } else {
                    connection.name(args.get(2));
                    out.put(Reply.OK);
                }
            }
            case "getname" -> Reply.bulkOrNull(connection, out, connection.name());
            case "id" -> out.put(RespCodec.integer(connection.id()));
            case "setinfo" -> {
                if (args.size() != 4) {
                    Reply.wrongArgs(out, "client|setinfo");
                } else {
                    String attribute = Reply.lower(args.get(2));
                    if (attribute.equals("lib-name") || attribute.equals("lib-ver")) {
                        out.put(Reply.OK);
                    } else {
                        out.put(RespCodec.error("ERR Unrecognized option '" + attribute + "'"));
                    }
                }
            }
            case "maint_notifications" -> out.put(NO_MAINT_NOTIFICATIONS);
            default ->
                    out.put(
                            RespCodec.error(
                                    "ERR unknown subcommand '"
                                            + sub
                                            + "' for 'client': dbf0 supports CLIENT SETNAME,"
                                            + " GETNAME, ID and SETINFO"));
        }
        return false;
    }

    /**
     * Redis's rule for a name: printable ASCII without spaces, since CLIENT LIST shows names as
     * space-separated fields.
     */
    static boolean validName(byte[] name) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                return false;
            }
        }
        return true;
    }
}
