package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * MGET key [key ...]: an array of the values, a null for each missing key ({@code $-1} in RESP2,
 * {@code _} in RESP3), as Redis answers it. Unlike Redis, dbf0 bounds the reply: it looks every
 * value up first and answers an error instead when the reply would pass {@code maxFrameBytes} (the
 * v2 frame limit, 16 MiB by default), so that 400 copies of a 1 MiB value asked for in 3.6 KB
 * cannot build 400 MiB of reply. The values written are the ones measured, so no concurrent writer
 * can make the reply larger than what was checked.
 */
final class MGet implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("MGET");
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
        int n = args.size();
        if (context.asyncReads()) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            CompletableFuture<ByteArrayWrapper>[] reads = new CompletableFuture[n - 1];
            for (int i = 1; i < n; i++) {
                reads[i - 1] = context.store().getAsync(Reply.key(args.get(i)));
            }
            Reply.whenRead(
                    connection,
                    out,
                    CompletableFuture.allOf(reads),
                    n - 1,
                    (o, done) -> answer(connection, context, o, n - 1, i -> reads[i].join()));
            return false;
        }
        answer(
                connection,
                context,
                out,
                n - 1,
                i -> context.store().get(Reply.key(args.get(i + 1))));
        return false;
    }

    /** The reply, from the value of each key by index, or an error if it would pass the limit. */
    private static void answer(
            RespConnection connection,
            RespContext context,
            OutputBuffer out,
            int keys,
            IntFunction<ByteArrayWrapper> valueOf) {
        int maxReplyBytes = context.limits().maxFrameBytes();
        byte[][] values = new byte[keys][];
        long size = RespCodec.arrayHeader(keys).length;
        for (int i = 0; i < keys; i++) {
            ByteArrayWrapper value = valueOf.apply(i);
            values[i] = value == null ? null : value.getArray();
            size += Reply.bulkOrNullSize(connection, values[i]);
            if (size > maxReplyBytes) {
                out.put(
                        RespCodec.error(
                                "ERR MGET reply would exceed "
                                        + maxReplyBytes
                                        + " bytes; ask for fewer keys at a time"));
                return;
            }
        }
        out.put(RespCodec.arrayHeader(keys));
        for (byte[] value : values) {
            Reply.bulkOrNull(connection, out, value);
        }
    }
}
