package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DEL key [key ...]: removes the keys and answers how many existed, as Redis does. A key named
 * twice counts once, since the second removal finds nothing.
 */
final class Del implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("DEL");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public KeySpec keys() {
        return KeySpec.WRITES_ALL;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        // Every key is submitted before any is waited for; the count is known once all are done.
        List<CompletableFuture<Boolean>> deletes = new ArrayList<>(args.size() - 1);
        for (int i = 1; i < args.size(); i++) {
            deletes.add(context.store().deleteAsync(Reply.key(args.get(i))));
        }
        Reply.whenDone(
                connection,
                context,
                CompletableFuture.allOf(deletes.toArray(CompletableFuture<?>[]::new)),
                deletes.size(),
                (o, done) -> {
                    long deleted = 0;
                    for (CompletableFuture<Boolean> delete : deletes) {
                        if (delete.join()) { // done by now: allOf completed
                            deleted++;
                        }
                    }
                    o.put(RespCodec.integer(deleted));
                });
        return false;
    }

    @Override
    public boolean defersReply() {
        return true;
    }
}
