package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * EXISTS key [key ...]: how many of the keys exist, as Redis answers it: a key named twice counts
 * twice.
 */
final class Exists implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("EXISTS");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public KeySpec keys() {
        return KeySpec.READS_ALL;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (context.asyncReads()) {
            // a store on disk: the reads go off the loop, as GET's do, and one reply follows
            @SuppressWarnings({"unchecked", "rawtypes"})
            CompletableFuture<ByteArrayWrapper>[] reads = new CompletableFuture[args.size() - 1];
            for (int i = 1; i < args.size(); i++) {
                reads[i - 1] = context.store().getAsync(Reply.key(args.get(i)));
            }
            Reply.whenRead(
                    connection,
                    out,
                    CompletableFuture.allOf(reads),
                    reads.length,
                    (o, done) ->
                            o.put(
                                    RespCodec.integer(
                                            Arrays.stream(reads)
                                                    .filter(r -> r.join() != null)
                                                    .count())));
            return false;
        }
        long found = 0;
        for (int i = 1; i < args.size(); i++) {
            if (context.store().contains(Reply.key(args.get(i)))) {
                found++;
            }
        }
        out.put(RespCodec.integer(found));
        return false;
    }
}
