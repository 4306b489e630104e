package dbf0.kv.server;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.DELETE;
import static dbf0.kv.protocol.V2Codec.ERROR;
import static dbf0.kv.protocol.V2Codec.GET;
import static dbf0.kv.protocol.V2Codec.HEADER_BYTES;
import static dbf0.kv.protocol.V2Codec.NOT_FOUND;
import static dbf0.kv.protocol.V2Codec.OK;
import static dbf0.kv.protocol.V2Codec.PING;
import static dbf0.kv.protocol.V2Codec.SET;
import static dbf0.kv.protocol.V2Codec.VALUE;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.KeyProbe;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The v2 requests a busy client sends, answered where they lie: a well-formed GET, SET, DELETE,
 * PING or BATCH is read from the input buffer, applied, and its reply written into the output
 * buffer, with no {@code Request}, {@code Response} or list made on the way. A GET's key is looked
 * up through a {@link KeyProbe}; a SET copies only the key and value the store keeps.
 *
 * <p>It answers only what needs no judgement: anything else (a frame not all here, a length or
 * field over a limit, an unknown type, a read behind writes still in flight, a batch whose reply
 * might not fit) is left untouched for {@link V2Session}'s decoder, which owns the errors and the
 * waiting. So the bytes on the wire are the decoder's, and the two paths are checked against each
 * other by the same tests.
 */
final class V2InPlace {

    /** A batch reply's type byte and count. */
    private static final int BATCH_HEADER = 1 + 4;

    private final Store store;
    private final ProtocolLimits limits;
    private final KeyProbe probe = new KeyProbe();

    /**
     * A store over a map has done a write when the call returns, so a batch can be answered in one
     * pass; a store with a log answers later, and its batches take {@link V2Session}'s path.
     */
    private final boolean writesDoneAtOnce;

    /** The answers queued behind writes still in flight: made once, not per write. */
    private final PendingReplies.Answer<Boolean> setAnswer;

    private final PendingReplies.Answer<Boolean> deleteAnswer;

    /** GETs go through {@link Store#getAsync}: an event loop over a store on disk. */
    private final boolean asyncReads;

    /** A GET's reply once its read is done: made once, not per read. */
    private final PendingReplies.Answer<ByteArrayWrapper> getAnswer;

    V2InPlace(Store store, ProtocolLimits limits, boolean asyncReads) {
        this.store = store;
        this.limits = limits;
        this.asyncReads = asyncReads;
        this.getAnswer = this::writeValue;
        this.writesDoneAtOnce = store instanceof MapStore;
        this.setAnswer = (o, found, failure) -> writeOutcome(o, found, failure, false);
        this.deleteAnswer = (o, found, failure) -> writeOutcome(o, found, failure, true);
    }

    /**
     * Answers the frame at the buffer's position if it is one this class handles, and consumes it.
     *
     * @return true if it was answered (or its write queued); false with nothing consumed otherwise
     */
    boolean tryAnswer(ByteBuffer in, OutputBuffer out, PendingReplies pending) {
        int start = in.position();
        if (in.remaining() < HEADER_BYTES) {
            return false;
        }
        int bodySize = u32(in, start);
        if (bodySize < 1
                || bodySize > limits.maxFrameBytes()
                || in.remaining() - HEADER_BYTES < bodySize) {
            return false;
        }
        int at = start + HEADER_BYTES + 1; // past the type byte
        int end = start + HEADER_BYTES + bodySize;
        boolean answered =
                switch (in.get(at - 1)) {
                    case GET ->
                            asyncReads
                                    ? pending.inFlight() == 0 && getAsync(in, at, end, out, pending)
                                    : pending.isEmpty() && get(in, at, end, out);
                    // a write may not pass a read still out (it would see the write)
                    case SET -> pending.readsInFlight() == 0 && set(in, at, end, out, pending);
                    case DELETE ->
                            pending.readsInFlight() == 0 && delete(in, at, end, out, pending);
                    case PING -> at == end && pending.isEmpty() && putTypeOnly(out, OK);
                    case BATCH -> writesDoneAtOnce && pending.isEmpty() && batch(in, at, end, out);
                    default -> false;
                };
        if (answered) {
            in.position(end);
        }
        return answered;
    }

    private boolean get(ByteBuffer in, int at, int end, OutputBuffer out) {
        if (fieldEnd(in, at, end, limits.maxKeyBytes()) != end) {
            return false;
        }
        ByteArrayWrapper value = store.get(probe.of(in, at + 4, u32(in, at)));
        if (value == null) {
            return putTypeOnly(out, NOT_FOUND);
        }
        if (1 + 4L + value.length() > limits.maxFrameBytes()) {
            return false; // the decoder's path answers the error
        }
        ByteBuffer o = out.reserve(HEADER_BYTES + 1 + 4 + value.length());
        o.putInt(1 + 4 + value.length());
        putValue(o, value);
        return true;
    }

    /**
     * A GET from a store that may wait for a disk: answered now if the value is in memory and no
     * reply waits before it, else queued, in order, while the loop serves other connections. It
     * needs only this connection's writes to be done (reads may overtake nothing: replies stay in
     * order), and its key is a copy, since the read may finish after the input buffer moved on.
     */
    private boolean getAsync(
            ByteBuffer in, int at, int end, OutputBuffer out, PendingReplies pending) {
        if (fieldEnd(in, at, end, limits.maxKeyBytes()) != end) {
            return false;
        }
        CompletableFuture<ByteArrayWrapper> read =
                store.getAsync(KeyProbe.wrapped(in, at + 4, u32(in, at)));
        if (read.isDone() && pending.isEmpty()) {
            Throwable failure = PendingReplies.failureOf(read);
            writeValue(out, failure == null ? read.join() : null, failure);
        } else {
            pending.addRead(read, 1, getAnswer);
        }
        return true;
    }

    /** A GET's reply frame: VALUE, NOT_FOUND, or ERROR if the read failed or cannot fit. */
    private void writeValue(OutputBuffer out, ByteArrayWrapper value, Throwable failure) {
        if (failure != null) {
            putErrorFrame(out, "read failed: " + failure.getMessage());
        } else if (value == null) {
            putTypeOnly(out, NOT_FOUND);
        } else if (1 + 4L + value.length() > limits.maxFrameBytes()) {
            putErrorFrame(out, "reply over the frame limit: a value of " + value.length());
        } else {
            ByteBuffer o = out.reserve(HEADER_BYTES + 1 + 4 + value.length());
            o.putInt(1 + 4 + value.length());
            putValue(o, value);
        }
    }

    private boolean set(ByteBuffer in, int at, int end, OutputBuffer out, PendingReplies pending) {
        int keyEnd = fieldEnd(in, at, end, limits.maxKeyBytes());
        if (keyEnd < 0 || fieldEnd(in, keyEnd, end, limits.maxValueBytes()) != end) {
            return false;
        }
        answer(out, pending, putOwned(in, at, keyEnd), setAnswer);
        return true;
    }

    private boolean delete(
            ByteBuffer in, int at, int end, OutputBuffer out, PendingReplies pending) {
        if (fieldEnd(in, at, end, limits.maxKeyBytes()) != end) {
            return false;
        }
        answer(out, pending, deleteOwned(in, at), deleteAnswer);
        return true;
    }

    /**
     * Writes the reply now for a map, whose write is done and which nothing waits before; any other
     * store's write is queued, so that all the writes of a read are submitted before any is waited
     * for (a log then makes them durable together).
     */
    private void answer(
            OutputBuffer out,
            PendingReplies pending,
            CompletableFuture<Boolean> write,
            PendingReplies.Answer<Boolean> answer) {
        if (writesDoneAtOnce && pending.isEmpty() && write.isDone()) {
            writeAnswer(out, write, answer);
        } else {
            pending.add(write, 1, answer);
        }
    }

    private static void writeAnswer(
            OutputBuffer out, CompletableFuture<Boolean> write, PendingReplies.Answer<Boolean> a) {
        Throwable failure = PendingReplies.failureOf(write);
        a.write(out, failure == null ? write.join() : null, failure);
    }

    private void writeOutcome(OutputBuffer o, Boolean found, Throwable failure, boolean delete) {
        ByteBuffer buffer = o.reserve(HEADER_BYTES + 1);
        int frameAt = buffer.position();
        buffer.putInt(0);
        putOutcome(o, found, failure, delete);
        patchLength(o, frameAt);
    }

    /**
     * A BATCH in two passes over its bytes: the first checks every operation against the limits and
     * finds the longest value a SET brings, the second applies them in order, each element written
     * as it is answered. The reply's length goes in last.
     *
     * <p>The reply must fit in one frame. When the store's bound on value lengths shows it does
     * ({@link V2Batches} explains the bound), nothing more is needed; otherwise the batch is left
     * to {@link V2Session}'s decoder and {@link V2Batches}, which sizes it with a dry run first. A
     * value that grows past the budget meanwhile is answered with an ERROR element, as there.
     */
    private boolean batch(ByteBuffer in, int at, int end, OutputBuffer out) {
        if (end - at < 4) {
            return false;
        }
        int count = u32(in, at);
        if (count < 0 || count > limits.maxBatchOps()) {
            return false;
        }
        long largest = store.largestValueBytes();
        int p = at + 4;
        for (int i = 0; i < count; i++) {
            if (p >= end) {
                return false;
            }
            byte type = in.get(p);
            int keyEnd = fieldEnd(in, p + 1, end, limits.maxKeyBytes());
            if (keyEnd < 0) {
                return false;
            }
            if (type == SET) {
                p = fieldEnd(in, keyEnd, end, limits.maxValueBytes());
                if (p < 0) {
                    return false;
                }
                largest = Math.max(largest, p - keyEnd - 4);
            } else if (type == GET || type == DELETE) {
                p = keyEnd;
            } else {
                return false;
            }
        }
        long budget = limits.maxFrameBytes() - BATCH_HEADER;
        if (p != end || largest > budget || 1 + 4 + largest > budget / Math.max(1, count)) {
            return false;
        }
        apply(in, at + 4, count, out, budget);
        return true;
    }

    private void apply(ByteBuffer in, int p, int count, OutputBuffer out, long budget) {
        ByteBuffer o = out.reserve(HEADER_BYTES + BATCH_HEADER);
        int frameAt = o.position();
        o.putInt(0).put(BATCH).putInt(count);
        Set<ByteArrayWrapper> failedWrites = null; // made only if a write fails
        for (int i = 0; i < count; i++) {
            byte type = in.get(p);
            int keyAt = p + 1;
            int keyEnd = keyAt + 4 + u32(in, keyAt);
            int before = out.pending();
            if (type == GET) {
                ByteArrayWrapper key = probe.of(in, keyAt + 4, keyEnd - keyAt - 4);
                ByteArrayWrapper value = store.get(key);
                if (failedWrites != null && failedWrites.contains(key)) {
                    putError(out, "not stored: the batch's earlier write of this key failed");
                } else if (value == null) {
                    out.reserve(1).put(NOT_FOUND);
                } else if (1 + 4L + value.length() > budget) {
                    putError(out, "value grew past the batch's reply limit while the batch ran");
                } else {
                    putValue(out.reserve(1 + 4 + value.length()), value);
                }
                p = keyEnd;
            } else {
                CompletableFuture<Boolean> write;
                if (type == SET) {
                    p = keyEnd + 4 + u32(in, keyEnd);
                    write = putOwned(in, keyAt, keyEnd);
                } else {
                    p = keyEnd;
                    write = deleteOwned(in, keyAt);
                }
                Throwable failure = PendingReplies.failureOf(write);
                if (failure != null) {
                    if (failedWrites == null) {
                        failedWrites = new HashSet<>();
                    }
                    failedWrites.add(KeyProbe.wrapped(in, keyAt + 4, keyEnd - keyAt - 4));
                } else if (failedWrites != null) {
                    failedWrites.remove(KeyProbe.wrapped(in, keyAt + 4, keyEnd - keyAt - 4));
                }
                putOutcome(out, failure == null ? write.join() : null, failure, type == DELETE);
            }
            budget -= out.pending() - before;
        }
        if (out.pending() - frameAt - HEADER_BYTES > limits.maxFrameBytes()) {
            // Only failed writes' messages can get here; the client still gets one answer.
            out.reserve(0).position(frameAt);
            putErrorFrame(out, "reply over the frame limit: a batch's error messages filled it");
            return;
        }
        patchLength(out, frameAt);
    }

    /** Submits a put of owned copies of the SET's key (field at {@code keyAt}) and value. */
    private CompletableFuture<Boolean> putOwned(ByteBuffer in, int keyAt, int keyEnd) {
        byte[] key = KeyProbe.copy(in, keyAt + 4, keyEnd - keyAt - 4);
        byte[] value = KeyProbe.copy(in, keyEnd + 4, u32(in, keyEnd));
        return store.putAsync(new ByteArrayWrapper(key), new ByteArrayWrapper(value));
    }

    /**
     * Submits a delete. A map only compares the key, so the probe serves; a store with a log keeps
     * the key until the record is written, so it gets its own copy.
     */
    private CompletableFuture<Boolean> deleteOwned(ByteBuffer in, int keyAt) {
        int length = u32(in, keyAt);
        return store.deleteAsync(
                writesDoneAtOnce
                        ? probe.of(in, keyAt + 4, length)
                        : KeyProbe.wrapped(in, keyAt + 4, length));
    }

    /** OK, NOT_FOUND (a delete that found nothing) or ERROR, as a body or a batch element. */
    private static void putOutcome(
            OutputBuffer out, Boolean found, Throwable failure, boolean delete) {
        if (failure != null) {
            putError(out, "not stored: " + failure.getMessage());
        } else {
            out.reserve(1).put(delete && !found ? NOT_FOUND : OK);
        }
    }

    private static boolean putTypeOnly(OutputBuffer out, byte type) {
        out.reserve(HEADER_BYTES + 1).putInt(1).put(type);
        return true;
    }

    private static void putValue(ByteBuffer o, ByteArrayWrapper value) {
        o.put(VALUE).putInt(value.length()).put(value.getArray());
    }

    private static void putError(OutputBuffer out, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        out.reserve(1 + 4 + text.length).put(ERROR).putInt(text.length).put(text);
    }

    private static void putErrorFrame(OutputBuffer out, String message) {
        int frameAt = out.reserve(HEADER_BYTES).position();
        out.reserve(HEADER_BYTES).putInt(0);
        putError(out, message);
        patchLength(out, frameAt);
    }

    /** Writes the length of the frame that starts at {@code frameAt} and ends at the position. */
    private static void patchLength(OutputBuffer out, int frameAt) {
        ByteBuffer o = out.reserve(0); // the buffer may have grown since: indexes still hold
        o.putInt(frameAt, o.position() - frameAt - HEADER_BYTES);
    }

    /** Where the field at {@code at} ends, or -1 if its length passes {@code limit} or the body. */
    private static int fieldEnd(ByteBuffer in, int at, int end, int limit) {
        if (end - at < 4) {
            return -1;
        }
        int length = u32(in, at);
        return length < 0 || length > limit || end - at - 4 < length ? -1 : at + 4 + length;
    }

    /** A big-endian u32 at an index, whatever the buffer's own byte order. */
    private static int u32(ByteBuffer in, int at) {
        int raw = in.getInt(at);
        return in.order() == ByteOrder.BIG_ENDIAN ? raw : Integer.reverseBytes(raw);
    }
}
