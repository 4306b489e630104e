package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * MSET key value [key value ...]: stores every pair, answers {@code +OK}. Redis sets them all
 * atomically; dbf0's store has no multi-key transaction, so another connection may see some pairs
 * before the rest, and if the store fails to keep one (a log's disk failing) the reply is an error
 * while other pairs may have been kept. Every pair is checked against the limits before any is
 * stored, so an oversized pair stores nothing.
 */
final class MSet implements RespCommand {

    /** Key, value, key, value, ...: every other argument from the first. */
    private static final KeySpec KEYS = new KeySpec(1, -1, 2, true);

    @Override
    public List<String> names() {
        return List.of("MSET");
    }

    @Override
    public int arity() {
        return -3;
    }

    @Override
    public KeySpec keys() {
        return KEYS;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        int n = args.size();
        byte[] error =
                n % 2 == 0
                        ? RespCodec.error(
                                "ERR wrong number of arguments for 'mset' command") // a key without
                        // its value
                        : Reply.overLimit(args, 1, context);
        if (error != null) {
            Reply.now(connection, out, error);
            return false;
        }
        // Every pair is submitted before any is waited for: under a log they share one fsync.
        CompletableFuture<?>[] writes = new CompletableFuture<?>[n / 2];
        for (int i = 1; i < n; i += 2) {
            writes[i / 2] =
                    context.store()
                            .putAsync(
                                    Reply.key(args.get(i)), new ByteArrayWrapper(args.get(i + 1)));
        }
        Reply.whenDone(
                connection,
                context,
                CompletableFuture.allOf(writes),
                writes.length,
                (o, done) -> o.put(Reply.OK));
        return false;
    }

    @Override
    public boolean defersReply() {
        return true;
    }
}
