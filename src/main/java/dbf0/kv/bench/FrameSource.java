package dbf0.kv.bench;

import dbf0.base.client.KeyValueClientStats;
import dbf0.base.client.LatencyRecorder;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.OperationKind;
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

    /** Appends one operation's requests and kinds; returns whether it writes. */
    private interface OpMaker {
        boolean append(List<Request> ops, List<Byte> kinds);
    }

    private final OpMaker maker;
    private final List<Request> pendingOps = new ArrayList<>(2);
    private final List<Byte> pendingKinds = new ArrayList<>(2);
    private boolean pendingWrites;

    private FrameSource(OpMaker maker) {
        this.maker = maker;
    }

    /** The seed's workload: a SET with probability {@code setFraction}, else a GET, random keys. */
    static FrameSource seed(KeyValueSource source, Random random, double setFraction) {
        return new FrameSource(
                (ops, kinds) -> {
                    ByteArrayWrapper key = source.nextKey().copy(); // the source reuses its buffer
                    if (random.nextDouble() < setFraction) {
                        ops.add(new Request.Set(key, source.valueFor(key).copy()));
                        kinds.add(UPDATE);
                        return true;
                    }
                    ops.add(new Request.Get(key));
                    kinds.add(READ);
                    return false;
                });
    }

    /** A keyed workload's operations. */
    static FrameSource keyed(KeyedWorkload.Generator generator) {
        return keyed(generator, null);
    }

    /** A keyed workload's operations, every written value stamped by {@code tags} (null: none). */
    static FrameSource keyed(KeyedWorkload.Generator generator, WriteTags tags) {
        return new FrameSource(
                (ops, kinds) -> {
                    KeyedWorkload.Op drawn = generator.next();
                    // the generator's arrays are new for each operation, so stamping them in place
                    // is safe
                    KeyedWorkload.Op op =
                            tags == null || drawn.value() == null
                                    ? drawn
                                    : new KeyedWorkload.Op(
                                            drawn.operation(),
                                            drawn.key(),
                                            tags.stamp(drawn.value()));
                    switch (op.operation()) {
                        case READ -> {
                            ops.add(new Request.Get(op.key()));
                            kinds.add(READ);
                            return false;
                        }
                        case UPDATE, INSERT -> {
                            ops.add(new Request.Set(op.key(), op.value()));
                            kinds.add(op.operation() == OperationKind.INSERT ? INSERT : UPDATE);
                        }
                        case READ_MODIFY_WRITE -> {
                            ops.add(new Request.Get(op.key()));
                            kinds.add(RMW_READ);
                            ops.add(new Request.Set(op.key(), op.value()));
                            kinds.add(RMW_WRITE);
                        }
                    }
                    return true;
                });
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
            if (pendingOps.isEmpty()) {
                pendingWrites = maker.append(pendingOps, pendingKinds);
            }
            int n = pendingOps.size();
            if (count > 0 && count + n > batchSize) {
                break;
            }
            if (count + n > kinds.length) {
                kinds = Arrays.copyOf(kinds, Math.max(2 * kinds.length, count + n));
            }
            // element by element: addAll would copy each one- or two-element list into an array
            // first
            for (int i = 0; i < n; i++) {
                ops.add(pendingOps.get(i));
                kinds[count++] = pendingKinds.get(i);
            }
            pendingOps.clear();
            pendingKinds.clear();
            writes |= pendingWrites;
            if (stopAtWrite && pendingWrites) {
                break;
            }
        }
        byte[] kindArray = count == kinds.length ? kinds : Arrays.copyOf(kinds, count);
        Request request = batchSize == 1 && count == 1 ? ops.get(0) : new Request.Batch(ops);
        return new Frame(request, kindArray, writes);
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
        if (replies.count() != kinds.length) {
            return 1;
        }
        long errors = 0;
        int operations = 0;
        for (int i = 0; i < kinds.length; i++) {
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
