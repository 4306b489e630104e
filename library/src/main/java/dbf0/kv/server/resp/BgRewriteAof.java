package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * BGREWRITEAOF: rewrite the write-ahead log from the live data, in the background. Redis answers at
 * once and reports the outcome in INFO persistence; so does dbf0 ({@code dbf0 compact} waits for
 * it). Without {@code --data-dir} there is no log, and the answer is an error saying so. Over the
 * B+tree store it vacuums the tree's file instead (its log is never rewritten: each checkpoint
 * starts a new one), which gives deleted keys' space back; INFO reports it in the same fields.
 */
final class BgRewriteAof implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("BGREWRITEAOF");
    }

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (context.btreeStore() != null) {
            context.btreeStore().vacuumAsync();
            out.put(RespCodec.simple("Background B+tree vacuum started"));
        } else if (context.walStore() == null) {
            out.put(
                    RespCodec.error(
                            "ERR this server keeps no log to rewrite: start it with --data-dir"));
        } else {
            context.walStore().rewriteAsync();
            out.put(RespCodec.simple("Background append only file rewriting started"));
        }
        return false;
    }
}
