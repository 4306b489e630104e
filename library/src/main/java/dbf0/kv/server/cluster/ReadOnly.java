package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * READONLY and READWRITE: as in Redis, READONLY lets this connection read from a replica: a member
 * of a replicated shard that does not lead it then answers the connection's reads of the shard's
 * keys from its own copy (possibly stale) instead of redirecting them with MOVED; writes still go
 * to the leader. READWRITE undoes it. On a cluster without replicas every node is a master, which
 * serves reads either way, and both only answer {@code +OK}.
 */
final class ReadOnly implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("READONLY", "READWRITE");
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        connection.readOnly(
                new String(args.get(0), StandardCharsets.US_ASCII).equalsIgnoreCase("READONLY"));
        out.put(Asking.OK);
        return false;
    }
}
