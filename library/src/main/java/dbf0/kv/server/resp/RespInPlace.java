package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.KeyProbe;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * GET, SET, MGET, MSET and DEL run where they lie in the input buffer: the command's arguments are
 * found as offsets into the buffer, not copied into a list of arrays, keys are looked up through a
 * {@link KeyProbe}, and the reply is written into the output buffer. A put copies only the key and
 * value the store keeps. The replies are byte for byte those of {@link Get}, {@link Set}, {@link
 * MGet}, {@link MSet} and {@link Del}.
 *
 * <p>It takes only what needs no judgement: a whole {@code *} array of at most {@value #MAX_ARGS}
 * arguments within the limits, one of those five names with a count they accept, no refused
 * transaction on the connection; a read only when no write of this connection is in flight; MSET
 * and DEL only when the store is a map (it has done the write when the call returns), while a SET
 * to a store with a log is queued behind the connection's replies. Anything else is left,
 * unconsumed, for the session's parser and {@link RespCommands}, which own the errors and the
 * waiting.
 */
public final class RespInPlace {

    /** Arguments at most, the name included; a longer command takes the parser's path. */
    public static final int MAX_ARGS = 1 + 2 * 256;

    /** A queued SET's reply: made once, not per write. */
    private static final PendingReplies.Answer<Boolean> SET_ANSWER =
            (o, stored, failure) -> o.put(failure == null ? Reply.OK : Reply.notStored(failure));

    private final RespConnection connection;
    private final Store store;
    private final int maxKey;
    private final int maxValue;
    private final int maxReply;
    private final boolean writesDoneAtOnce;
    private final boolean asyncReads;
    private final KeyProbe probe = new KeyProbe();

    /** A GET's reply once its read is done: made once, not per read. */
    private final PendingReplies.Answer<ByteArrayWrapper> getAnswer;

    /** Where each argument's bytes start in the input, and how many there are (reused arrays). */
    private final int[] starts = new int[MAX_ARGS];

    private final int[] lengths = new int[MAX_ARGS];

    /** Where the last number read ended, past its CRLF. */
    private int next;

    /**
     * The fast path of one connection.
     *
     * @param connection the connection's state (protocol, pending replies, transaction)
     * @param context the store and the limits
     */
    public RespInPlace(RespConnection connection, RespContext context) {
        this.connection = connection;
        this.store = context.store();
        this.maxKey = context.limits().maxKeyBytes();
        this.maxValue = context.limits().maxValueBytes();
        this.maxReply = context.limits().maxFrameBytes();
        this.writesDoneAtOnce = store instanceof MapStore;
        this.asyncReads = context.asyncReads();
        this.getAnswer = (o, value, failure) -> bulkOrFailure(o, value, failure);
    }

    /**
     * Runs the command at the buffer's position if it is one this class takes, and consumes it.
     *
     * @param in the input, at the start of a command
     * @param out the connection's replies
     * @return true if it ran; false with nothing consumed otherwise
     */
    public boolean tryRun(ByteBuffer in, OutputBuffer out) {
        int n = arguments(in);
        if (n < 2 || connection.refusedTransaction()) {
            return false;
        }
        boolean idle = connection.pending().isEmpty();
        // A store on disk: reads go out while earlier reads are out, but not past this
        // connection's writes, which they must see.
        boolean readable = asyncReads ? connection.pending().inFlight() == 0 : idle;
        boolean ran;
        if (is(in, "GET") && n == 2) {
            ran = readable && (asyncReads ? getAsync(in, out) : get(in, out));
        } else if (is(in, "SET") && n == 3) {
            // a write may not pass a read still out (it would see the write)
            boolean writable = connection.pending().readsInFlight() == 0;
            ran =
                    pairsFit(n)
                            && (writesDoneAtOnce
                                    ? idle && mset(in, out, n)
                                    : writable && queuedSet(in));
        } else if (is(in, "MGET")) {
            ran = readable && (asyncReads ? mgetAsync(in, out, n) : mget(in, out, n));
        } else if (is(in, "MSET") && n % 2 == 1) {
            ran = idle && writesDoneAtOnce && pairsFit(n) && mset(in, out, n);
        } else if (is(in, "DEL")) {
            ran = idle && writesDoneAtOnce && del(in, out, n);
        } else {
            ran = false;
        }
        if (ran) {
            in.position(next);
        }
        return ran;
    }

    private boolean get(ByteBuffer in, OutputBuffer out) {
        putBulkOrNull(out, store.get(probe.of(in, starts[1], lengths[1])));
        return true;
    }

    /**
     * GET from a store that may wait for a disk: answered now if the value was in memory and no
     * reply waits before it, else queued in order while the loop serves others. The key is a copy:
     * the read may finish after the input buffer moved on.
     */
    private boolean getAsync(ByteBuffer in, OutputBuffer out) {
        CompletableFuture<ByteArrayWrapper> read =
                store.getAsync(KeyProbe.wrapped(in, starts[1], lengths[1]));
        PendingReplies pending = connection.pending();
        if (read.isDone() && pending.isEmpty()) {
            Throwable failure = PendingReplies.failureOf(read);
            bulkOrFailure(out, failure == null ? read.join() : null, failure);
        } else {
            pending.addRead(read, 1, getAnswer);
        }
        return true;
    }

    /** MGET from a store that may wait for a disk: every read starts now, one reply when done. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private boolean mgetAsync(ByteBuffer in, OutputBuffer out, int n) {
        CompletableFuture<ByteArrayWrapper>[] reads = new CompletableFuture[n - 1];
        boolean allDone = true;
        for (int i = 1; i < n; i++) {
            reads[i - 1] = store.getAsync(KeyProbe.wrapped(in, starts[i], lengths[i]));
            allDone &= reads[i - 1].isDone();
        }
        PendingReplies pending = connection.pending();
        if (allDone && pending.isEmpty()) {
            writeMget(out, reads);
        } else {
            pending.addRead(
                    CompletableFuture.allOf(reads), n - 1, (o, ignored, f) -> writeMget(o, reads));
        }
        return true;
    }

    private void writeMget(OutputBuffer out, CompletableFuture<ByteArrayWrapper>[] reads) {
        for (CompletableFuture<ByteArrayWrapper> read : reads) {
            Throwable failure = PendingReplies.failureOf(read);
            if (failure != null) {
                bulkOrFailure(out, null, failure);
                return;
            }
        }
        putValues(out, reads.length, i -> reads[i].join());
    }

    private boolean mget(ByteBuffer in, OutputBuffer out, int n) {
        putValues(out, n - 1, i -> store.get(probe.of(in, starts[i + 1], lengths[i + 1])));
        return true;
    }

    /** MGET's reply: the values as an array, or an error if it would pass the reply limit. */
    private void putValues(
            OutputBuffer out, int count, java.util.function.IntFunction<ByteArrayWrapper> value) {
        int replyAt = out.pending();
        RespCodec.putHeader(out.reserve(RespCodec.headerSize(count)), (byte) '*', count);
        for (int i = 0; i < count; i++) {
            putBulkOrNull(out, value.apply(i));
            if (out.pending() - replyAt > maxReply) {
                out.reserve(0).position(replyAt); // nothing of it is sent
                out.put(
                        RespCodec.error(
                                "ERR MGET reply would exceed "
                                        + maxReply
                                        + " bytes; ask for fewer keys at a time"));
                return;
            }
        }
    }

    /** A read's reply: the value or the connection's null, or an error if the read failed. */
    private void bulkOrFailure(OutputBuffer out, ByteArrayWrapper value, Throwable failure) {
        if (failure != null) {
            out.put(Reply.readFailed(failure));
        } else {
            putBulkOrNull(out, value);
        }
    }

    /** SET key value, or MSET's pairs: every pair is put, then one reply. */
    private boolean mset(ByteBuffer in, OutputBuffer out, int n) {
        Throwable failure = null;
        for (int i = 1; i < n; i += 2) {
            ByteArrayWrapper key = KeyProbe.wrapped(in, starts[i], lengths[i]);
            ByteArrayWrapper value = KeyProbe.wrapped(in, starts[i + 1], lengths[i + 1]);
            Throwable failed = PendingReplies.failureOf(store.putAsync(key, value));
            failure = failure == null ? failed : failure;
        }
        out.put(failure == null ? Reply.OK : Reply.notStored(failure));
        return true;
    }

    /**
     * SET on a store with a log: submitted now, answered once the log has it, behind this
     * connection's earlier replies, as {@link Set} does; writes may queue behind writes.
     */
    private boolean queuedSet(ByteBuffer in) {
        ByteArrayWrapper key = KeyProbe.wrapped(in, starts[1], lengths[1]);
        ByteArrayWrapper value = KeyProbe.wrapped(in, starts[2], lengths[2]);
        connection.pending().add(store.putAsync(key, value), 1, SET_ANSWER);
        return true;
    }

    private boolean del(ByteBuffer in, OutputBuffer out, int n) {
        long deleted = 0;
        Throwable failure = null;
        for (int i = 1; i < n; i++) {
            // A map only compares the key it removes, so the probe serves.
            CompletableFuture<Boolean> delete =
                    store.deleteAsync(probe.of(in, starts[i], lengths[i]));
            Throwable failed = PendingReplies.failureOf(delete);
            if (failed == null && delete.join()) {
                deleted++;
            }
            failure = failure == null ? failed : failure;
        }
        if (failure != null) {
            out.put(Reply.notStored(failure));
        } else {
            RespCodec.putHeader(out.reserve(RespCodec.headerSize(deleted)), (byte) ':', deleted);
        }
        return true;
    }

    /** Whether every key and value of SET's or MSET's pairs is within the limits. */
    private boolean pairsFit(int n) {
        for (int i = 1; i + 1 < n; i += 2) {
            if (lengths[i] > maxKey || lengths[i + 1] > maxValue) {
                return false; // the command's own class answers the error
            }
        }
        return true;
    }

    /** A bulk string, or the connection's null: {@code $-1} in RESP2, {@code _} in RESP3. */
    private void putBulkOrNull(OutputBuffer out, ByteArrayWrapper value) {
        if (value == null) {
            out.put(connection.resp3() ? RespCodec.NULL3 : RespCodec.NULL_BULK);
        } else {
            RespCodec.putBulk(out.reserve(RespCodec.bulkSize(value.getArray())), value.getArray());
        }
    }

    /** Whether the first argument is {@code name} (upper case), in any case. */
    private boolean is(ByteBuffer in, String name) {
        if (lengths[0] != name.length()) {
            return false;
        }
        for (int i = 0; i < lengths[0]; i++) {
            if ((in.get(starts[0] + i) & ~0x20) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Finds the arguments of the whole {@code *} array at the position: their count, with {@link
     * #starts}, {@link #lengths} and {@link #next} filled; or -1 if it is not all here, is
     * malformed, or passes a limit (the parser then says which).
     */
    private int arguments(ByteBuffer in) {
        int at = in.position();
        if (in.limit() - at < 4 || in.get(at) != '*') {
            return -1;
        }
        long n = number(in, at + 1);
        if (n < 1 || n > MAX_ARGS) {
            return -1;
        }
        long commandBytes = next - at;
        for (int i = 0; i < n; i++) {
            int header = next;
            if (header >= in.limit() || in.get(header) != '$') {
                return -1;
            }
            long length = number(in, header + 1);
            long end = next + length + 2L;
            if (length < 0 || length > Math.max(maxKey, maxValue) || end > in.limit()) {
                return -1;
            }
            int dataEnd = (int) end - 2;
            if (in.get(dataEnd) != '\r' || in.get(dataEnd + 1) != '\n') {
                return -1;
            }
            starts[i] = next;
            lengths[i] = (int) length;
            commandBytes += end - header;
            next = (int) end;
        }
        return commandBytes > maxReply ? -1 : (int) n;
    }

    /**
     * The decimal number at {@code from}, ended by CRLF, with {@link #next} set past it; -1 if
     * there is none, it is not all here, or it has more than 10 digits.
     */
    private long number(ByteBuffer in, int from) {
        long value = 0;
        int i = from;
        while (i < in.limit() && i - from <= 10) {
            byte b = in.get(i);
            if (b == '\r') {
                if (i == from || i + 1 >= in.limit() || in.get(i + 1) != '\n') {
                    return -1;
                }
                next = i + 2;
                return value;
            }
            if (b < '0' || b > '9') {
                return -1;
            }
            value = value * 10 + (b - '0');
            i++;
        }
        return -1;
    }
}
