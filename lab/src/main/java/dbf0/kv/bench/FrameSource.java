package dbf0.kv.bench;

import dbf0.base.client.KeyValueClientStats;
import dbf0.base.client.LatencyRecorder;
import dbf0.base.io.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyedWorkload;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The frames a v2 connector sends, each with one kind per request, so that its reply is counted by
 * what was asked (an OK is an update, an insert or the write half of a read-modify-write) rather
 * than guessed from the reply alone.
 *
 * <p>A read-modify-write is a GET and a SET of the same record, sent together in one frame (a batch
 * of two even when the run sends one operation per frame) and counted as one operation with one
 * latency, the whole frame's. YCSB's client waits for the read before it writes, which is two round
 * trips; here the written value does not depend on the value read (values are derived from keys),
 * so the write need not wait, and F measures one round trip per operation.
 */
final class FrameSource {

    static final byte READ = 0;
    static final byte UPDATE = 1;
    static final byte INSERT = 2;
    static final byte RMW_READ = 3;
    static final byte RMW_WRITE = 4;

    /** One frame to send: the request, a kind per operation in it, and whether it writes. */
    record Frame(Request request, byte[] kinds, boolean writes) {}

    /** Draws one operation into a {@link DrawnOp} that holds nothing. */
    private interface OpMaker {
        void draw(DrawnOp op);
    }

    private final OpMaker maker;

    /** True if the maker leaves the source's reused buffers in {@link #pending}: copy to keep. */
    private final boolean reusesBuffers;

    /** The operation drawn and not yet in a frame (it did not fit in the last one). */
    private final DrawnOp pending = new DrawnOp();

    private FrameSource(OpMaker maker, boolean reusesBuffers) {
        this.maker = maker;
        this.reusesBuffers = reusesBuffers;
    }

    /** The seed's workload: a SET with probability {@code setFraction}, else a GET, random keys. */
    static FrameSource seed(KeyValueSource source, Random random, double setFraction) {
        return new FrameSource(
                op -> {
                    ByteArrayWrapper key = source.nextKey(); // the source's buffer, reused
                    if (random.nextDouble() < setFraction) {
                        op.set(UPDATE, key, source.valueFor(key));
                    } else {
                        op.get(READ, key);
                    }
                },
                true);
    }

    /** A keyed workload's operations. */
    static FrameSource keyed(KeyedWorkload.Generator generator) {
        return keyed(generator, null);
    }

    /** A keyed workload's operations, every written value stamped by {@code tags} (null: none). */
    static FrameSource keyed(KeyedWorkload.Generator generator, WriteTags tags) {
        return new FrameSource(
                op -> {
                    KeyedWorkload.Op drawn = generator.next();
                    // the generator's arrays are new for each operation, so stamping them in place
                    // is safe
                    ByteArrayWrapper value =
                            tags == null || drawn.value() == null
                                    ? drawn.value()
                                    : tags.stamp(drawn.value());
                    switch (drawn.operation()) {
                        case READ -> op.get(READ, drawn.key());
                        case UPDATE -> op.set(UPDATE, drawn.key(), value);
                        case INSERT -> op.set(INSERT, drawn.key(), value);
                        case READ_MODIFY_WRITE -> {
                            op.get(RMW_READ, drawn.key());
                            op.set(RMW_WRITE, drawn.key(), value);
                        }
                    }
                },
                false);
    }

    /**
     * The next frame: operations until {@code batchSize} requests, a single request when that is
     * one (a read-modify-write still goes as a batch of two). An operation never straddles frames:
     * one that does not fit waits for the next. With {@code stopAtWrite}, the frame ends after the
     * first operation that writes (order-preserving mode's barrier).
     */
    Frame next(int batchSize, boolean stopAtWrite) {
        List<Request> ops = new ArrayList<>(Math.min(batchSize, 1024));
        byte[] kinds = new byte[Math.min(batchSize, 1024)];
        int count = 0;
        boolean writes = false;
        while (count < batchSize) {
            if (pending.parts == 0) {
                maker.draw(pending);
            }
            int n = pending.parts;
            if (count > 0 && count + n > batchSize) {
                break;
            }
            if (count + n > kinds.length) {
                kinds = Arrays.copyOf(kinds, Math.max(2 * kinds.length, count + n));
            }
            for (int i = 0; i < n; i++) {
                ops.add(request(i));
                kinds[count++] = pending.kinds[i];
            }
            boolean wrote = pending.writes;
            pending.clear();
            writes |= wrote;
            if (stopAtWrite && wrote) {
                break;
            }
        }
        byte[] kindArray = count == kinds.length ? kinds : Arrays.copyOf(kinds, count);
        Request request = batchSize == 1 && count == 1 ? ops.get(0) : new Request.Batch(ops);
        return new Frame(request, kindArray, writes);
    }

    /** Part {@code i} of the pending operation as a request that owns its bytes. */
    private Request request(int i) {
        ByteArrayWrapper key = reusesBuffers ? pending.keys[i].copy() : pending.keys[i];
        if (pending.types[i] == V2Codec.GET) {
            return new Request.Get(key);
        }
        ByteArrayWrapper value = pending.values[i];
        return new Request.Set(key, reusesBuffers ? value.copy() : value);
    }

    /** The kinds of one frame written by {@link #encodeNext}, kept until its reply: reused. */
    static final class Sent {
        byte[] kinds = new byte[16];
        int count;
        boolean writes;
    }

    /**
     * The same frame as {@link #next}, written straight into {@code out} as bytes, with no {@code
     * Request} and no copy of a key or value; its kinds go into {@code sent}.
     *
     * @throws IllegalArgumentException if the frame breaks a limit, as the encoder would
     */
    void encodeNext(
            OutputBuffer out,
            int batchSize,
            boolean stopAtWrite,
            Sent sent,
            ProtocolLimits limits) {
        if (pending.parts == 0) {
            maker.draw(pending);
        }
        boolean batch = batchSize > 1 || pending.parts > 1;
        int frameAt = out.pending();
        out.reserve(4 + 1 + 4).putInt(0);
        if (batch) {
            out.reserve(1 + 4).put(V2Codec.BATCH).putInt(0);
        }
        sent.count = 0;
        sent.writes = false;
        while (sent.count < batchSize) {
            if (pending.parts == 0) {
                maker.draw(pending);
            }
            int n = pending.parts;
            if (sent.count > 0 && sent.count + n > batchSize) {
                break;
            }
            if (sent.count + n > sent.kinds.length) {
                sent.kinds = Arrays.copyOf(sent.kinds, 2 * (sent.count + n));
            }
            for (int i = 0; i < n; i++) {
                pending.put(out.reserve(pending.size(i)), i);
                sent.kinds[sent.count++] = pending.kinds[i];
            }
            boolean wrote = pending.writes;
            pending.clear();
            sent.writes |= wrote;
            if (stopAtWrite && wrote) {
                break;
            }
        }
        long body = out.pending() - frameAt - 4L;
        if (body > limits.maxFrameBytes() || (batch && sent.count > limits.maxBatchOps())) {
            throw new IllegalArgumentException(
                    "a frame of " + body + " bytes, " + sent.count + " operations, over the limit");
        }
        ByteBuffer frame = out.reserve(0);
        frame.putInt(frameAt, (int) body);
        if (batch) {
            frame.putInt(frameAt + 5, sent.count);
        }
    }

    /**
     * The next operation, drawn now if none waits, for a connector that places each one itself
     * ({@link ShardedConnector}). Valid until {@link #take}, which it must be given to next.
     */
    DrawnOp peek() {
        if (pending.parts == 0) {
            maker.draw(pending);
        }
        return pending;
    }

    /** Consumes the operation {@link #peek} returned: the next peek draws a new one. */
    void take() {
        pending.clear();
    }

    /**
     * Counts one reply frame that answers a frame of {@code kinds} sent at {@code start}: its
     * operations in {@code stats} and its latency, once per operation, in {@code latencies}, if the
     * frame was sent inside the measured interval.
     *
     * @return how many errors the frame held (an invalid frame, a reply of the wrong shape, ERROR)
     */
    static long account(
            DecodeResult.Complete<Response> result,
            byte[] kinds,
            long start,
            long now,
            KeyValueClientStats stats,
            LatencyRecorder latencies) {
        if (!(result instanceof DecodeResult.Frame<Response> frame)) {
            return 1;
        }
        if (!latencies.counts(start)) {
            return 0;
        }
        List<Response> replies =
                frame.value() instanceof Response.Batch batch
                        ? batch.replies()
                        : List.of(frame.value());
        if (replies.size() != kinds.length) {
            return 1;
        }
        byte[] types = new byte[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            types[i] =
                    switch (replies.get(i)) {
                        case Response.Value value -> V2Codec.VALUE;
                        case Response.NotFound notFound -> V2Codec.NOT_FOUND;
                        case Response.Ok ok -> V2Codec.OK;
                        default -> V2Codec.ERROR;
                    };
        }
        return count(types, kinds.length, kinds, start, now, stats, latencies);
    }

    /**
     * As {@link #account(DecodeResult.Complete, byte[], long, long, KeyValueClientStats,
     * LatencyRecorder)}, for a frame read in place ({@code wellFormed} false if it was invalid).
     */
    static long account(
            ReplyTypes replies,
            boolean wellFormed,
            byte[] kinds,
            int n,
            long start,
            long now,
            KeyValueClientStats stats,
            LatencyRecorder latencies) {
        if (!wellFormed) {
            return 1;
        }
        if (!latencies.counts(start)) {
            return 0;
        }
        if (replies.count() != n) {
            return 1;
        }
        long errors = 0;
        int operations = 0;
        for (int i = 0; i < n; i++) {
            errors += countOne(replies.type(i), kinds[i], stats);
            operations += kinds[i] == RMW_READ ? 0 : 1; // the pair is one operation, at its write
        }
        latencies.record(start, now, operations);
        return errors;
    }

    private static long count(
            byte[] types,
            int n,
            byte[] kinds,
            long start,
            long now,
            KeyValueClientStats stats,
            LatencyRecorder latencies) {
        long errors = 0;
        int operations = 0;
        for (int i = 0; i < n; i++) {
            errors += countOne(types[i], kinds[i], stats);
            operations += kinds[i] == RMW_READ ? 0 : 1; // the pair is one operation, at its write
        }
        latencies.record(start, now, operations);
        return errors;
    }

    /** Counts one reply of type {@code type} to an operation of {@code kind}; 1 if it is wrong. */
    private static int countOne(byte type, byte kind, KeyValueClientStats stats) {
        boolean read = type == V2Codec.VALUE || type == V2Codec.NOT_FOUND;
        boolean ok = type == V2Codec.OK;
        switch (kind) {
            case READ -> {
                if (read) {
                    stats.countGet(type == V2Codec.VALUE, false);
                }
            }
            case UPDATE -> {
                if (ok) {
                    stats.countSet();
                }
            }
            case INSERT -> {
                if (ok) {
                    stats.countInsert();
                }
            }
            case RMW_WRITE -> {
                if (ok) {
                    stats.countReadModifyWrite();
                }
            }
            default -> {}
        }
        boolean expected = kind == READ || kind == RMW_READ ? read : ok;
        return expected ? 0 : 1;
    }
}
