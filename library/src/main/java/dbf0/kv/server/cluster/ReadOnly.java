package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.util.List;

/**
 * READONLY and READWRITE: in Redis they let a client read from a replica. A dbf0 cluster has no
 * replicas, every node is a master, and a master serves reads either way, so both answer {@code
 * +OK} and change nothing, as they do on a Redis master: clients that send them by default work.
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
        out.put(Asking.OK);
        return false;
    }
}
