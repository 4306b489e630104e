package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * DBSIZE: the number of keys, {@link dbf0.kv.storage.Store#keyCount}, in O(1) on every store that
 * answers it so, as Redis does: monitoring asks every second. Redis refuses arguments; dbf0 ignores
 * them, as it always has. With a concurrent store the count is approximate while writers are busy;
 * on the LSM store it is an estimate by design (docs/6-disk.md), which INFO's keyspace section
 * says.
 */
final class DbSize implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("DBSIZE");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        out.put(RespCodec.integer(context.store().keyCount()));
        return false;
    }
}
