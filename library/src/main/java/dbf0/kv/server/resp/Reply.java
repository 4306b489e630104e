package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.storage.StoreRefusedException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/** Replies and argument conversions the commands share, so each writes them the same way. */
final class Reply {

    static final byte[] OK = RespCodec.simple("OK");

    private Reply() {}

    /**
     * A bulk string written straight into {@code out}; for null, the null bulk string, which only
     * RESP2 connections get ({@link #bulkOrNull} picks the right null).
     */
    static void bulk(OutputBuffer out, byte[] bytes) {
        RespCodec.putBulk(out.reserve(RespCodec.bulkSize(bytes)), bytes);
    }

    /**
     * A bulk string, or for null the connection's null: {@code $-1} in RESP2, {@code _} in RESP3.
     */
    static void bulkOrNull(RespConnection connection, OutputBuffer out, byte[] bytes) {
        if (bytes == null && connection.resp3()) {
            out.put(RespCodec.NULL3);
        } else {
            bulk(out, bytes);
        }
    }

    /** Bytes {@link #bulkOrNull} will write. */
    static int bulkOrNullSize(RespConnection connection, byte[] bytes) {
        return bytes == null && connection.resp3()
                ? RespCodec.NULL3.length
                : RespCodec.bulkSize(bytes);
    }

    /**
     * The header of a map of {@code pairs} key/value pairs: a RESP3 map, or in RESP2 the flat array
     * of keys and values Redis sends there.
     */
    static void mapHeader(RespConnection connection, OutputBuffer out, int pairs) {
        out.put(connection.resp3() ? RespCodec.mapHeader(pairs) : RespCodec.arrayHeader(pairs * 2));
    }

    /**
     * Text for a person (INFO): a verbatim "txt" string in RESP3, a bulk string in RESP2, as Redis
     * sends it.
     */
    static void text(RespConnection connection, OutputBuffer out, byte[] text) {
        if (connection.resp3()) {
            RespCodec.putVerbatim(out.reserve(RespCodec.verbatimSize(text)), "txt", text);
        } else {
            bulk(out, text);
        }
    }

    static void wrongArgs(OutputBuffer out, String command) {
        out.put(RespCodec.error("ERR wrong number of arguments for '" + command + "' command"));
    }

    static ByteArrayWrapper key(byte[] bytes) {
        return new ByteArrayWrapper(bytes);
    }

    /** A subcommand or parameter name, for case-insensitive comparison. */
    static String lower(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    }

    /**
     * Checks the key/value pairs of {@code args} from index {@code from} against the limits.
     *
     * @return the error answering the first pair that is over (the command must not go on), or null
     */
    static byte[] overLimit(List<byte[]> args, int from, RespContext context) {
        int maxKey = context.limits().maxKeyBytes();
        int maxValue = context.limits().maxValueBytes();
        for (int i = from; i + 1 < args.size(); i += 2) {
            if (args.get(i).length > maxKey) {
                return RespCodec.error(
                        "ERR key of "
                                + args.get(i).length
                                + " bytes exceeds the "
                                + maxKey
                                + "-byte limit");
            }
            if (args.get(i + 1).length > maxValue) {
                return RespCodec.error(
                        "ERR value of "
                                + args.get(i + 1).length
                                + " bytes exceeds the "
                                + maxValue
                                + "-byte limit");
            }
        }
        return null;
    }

    /**
     * A reply that needs no waiting, from a command that defers its replies: it keeps its place.
     */
    static void now(RespConnection connection, OutputBuffer out, byte[] reply) {
        connection.pending().reply(out, o -> o.put(reply));
    }

    /**
     * Queues the reply to {@code writes} writes that complete {@code done}: {@code ok} once they
     * are done, or {@code -ERR not stored: ...} if the store could not keep one (a log's disk
     * failed), as Redis answers when its AOF cannot be written. A write answered notes where it
     * sits in the store's log, for WAIT ({@link RespConnection#lastWriteIndex}).
     */
    static <T> void whenDone(
            RespConnection connection,
            RespContext context,
            CompletableFuture<T> done,
            int writes,
            java.util.function.BiConsumer<OutputBuffer, T> ok) {
        connection
                .pending()
                .add(
                        done,
                        writes,
                        (o, result, failure) -> {
                            if (failure != null) {
                                o.put(notStored(failure));
                            } else {
                                connection.lastWriteIndex(context.store().lastWriteIndex());
                                ok.accept(o, result);
                            }
                        });
    }

    /**
     * The error for a write the store could not keep; a store's refusal ({@link
     * StoreRefusedException}: a replica's READONLY, a TRYAGAIN) goes out under its own code.
     */
    static byte[] notStored(Throwable failure) {
        if (failure instanceof StoreRefusedException refused) {
            return refusal(refused);
        }
        return RespCodec.error(
                "ERR not stored: "
                        + String.valueOf(failure.getMessage()).replaceAll("[\r\n]", " "));
    }

    /** The error for a read the store could not do (a disk's I/O error, a corrupt block). */
    static byte[] readFailed(Throwable failure) {
        if (failure instanceof StoreRefusedException refused) {
            return refusal(refused);
        }
        return RespCodec.error(
                "ERR read failed: "
                        + String.valueOf(failure.getMessage()).replaceAll("[\r\n]", " "));
    }

    /** {@code -CODE message}, as Redis words its own refusals. */
    private static byte[] refusal(StoreRefusedException refused) {
        return RespCodec.error(
                refused.code()
                        + " "
                        + String.valueOf(refused.getMessage()).replaceAll("[\r\n]", " "));
    }

    /**
     * Runs {@code work} on a virtual thread of its own, for a command whose answer must read a
     * whole store on disk (SCAN, KEYS): the event loop goes on serving others, and the reply is
     * queued with {@link #whenRead}, which counts it toward the connection's bound.
     */
    static <T> CompletableFuture<T> offLoop(java.util.function.Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, task -> Thread.ofVirtual().start(task));
    }

    /**
     * Answers a read: now if it is done and nothing waits before it, else queued in order on the
     * connection's replies (a read from a store on disk, which the loop does not wait for).
     */
    static <T> void whenRead(
            RespConnection connection,
            OutputBuffer out,
            CompletableFuture<T> read,
            int reads,
            java.util.function.BiConsumer<OutputBuffer, T> ok) {
        PendingReplies.Answer<T> answer =
                (o, result, failure) -> {
                    if (failure != null) {
                        o.put(readFailed(failure));
                    } else {
                        ok.accept(o, result);
                    }
                };
        PendingReplies pending = connection.pending();
        if (read.isDone() && pending.isEmpty()) {
            Throwable failure = PendingReplies.failureOf(read);
            answer.write(out, failure == null ? read.join() : null, failure);
        } else {
            pending.addRead(read, reads, answer);
        }
    }
}
