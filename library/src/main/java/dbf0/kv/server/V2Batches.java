package dbf0.kv.server;

import static dbf0.kv.server.V2Session.NOT_FOUND;
import static dbf0.kv.server.V2Session.OK;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.storage.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs a decoded v2 BATCH for {@link V2Session}: the batches {@link V2InPlace} leaves to the
 * decoder, which are those over a store with a log or on disk, those behind replies still pending,
 * those whose reply might not fit, and every batch on a cluster node.
 *
 * <p>A batch's reply must fit in one frame. Its size is worked out first, from the sizes of the
 * values its GETs would read now, and a batch whose reply would not fit gets an ERROR reply with
 * nothing applied. GETs see the batch's own earlier SETs and DELETEs, so the dry run tracks those
 * in a small overlay instead of touching the store. The dry run is skipped when the store's bound
 * on value lengths ({@link Store#largestValueBytes()}) already shows that the reply fits ({@link
 * #mayOutgrow}).
 *
 * <p>Then every write of the batch is submitted at once and the batch's reply waits for them all
 * (one fsync for the batch under a log, not one per write). A GET of a key the batch wrote earlier
 * is answered from the overlay, since that write is not in the store until it is durable; if that
 * write then fails, the GET's element is an ERROR too, so the client is never shown a value that
 * was not kept. Other GETs read the store now.
 *
 * <p>Race, honestly: another connection can grow a value between the check and the apply. The apply
 * then keeps a budget too, and a GET whose value no longer fits is answered with an ERROR element
 * in place of the value; the batch's writes are applied either way.
 */
final class V2Batches {

    /** A batch reply's type byte and element count. */
    private static final long BATCH_HEADER = 1 + 4;

    private final Store store;
    private final ProtocolLimits limits;

    /** The session's replies, where a batch's reply waits for its writes. */
    private final PendingReplies pending;

    V2Batches(Store store, ProtocolLimits limits, PendingReplies pending) {
        this.store = store;
        this.limits = limits;
        this.pending = pending;
    }

    /**
     * Checks that the batch's reply fits, then submits it: its reply is queued on the session's
     * pending replies, or written now if it does not fit.
     *
     * @param reads the batch's reads, made before it ran (a store on disk), or null to read now
     */
    void submit(Request.Batch batch, BatchReads reads, OutputBuffer out) {
        long budget = limits.maxFrameBytes() - BATCH_HEADER;
        if (mayOutgrow(batch, budget) && !fits(batch, reads, budget)) {
            V2Session.reply(
                    out,
                    new Response.Error(
                            "batch reply would exceed the "
                                    + limits.maxFrameBytes()
                                    + "-byte frame limit; nothing applied (ask for fewer or smaller"
                                    + " values per batch)"),
                    limits);
            return;
        }
        submitChecked(batch, reads, budget);
    }

    /**
     * Whether the reply could pass the budget at all, judged without a lookup: every element is at
     * most a VALUE of the longest value the store or the batch holds. With 1,000 GETs of 64-byte
     * values that is 69 KB against 16 MiB, and the dry run ({@link #fits}), which reads every GET's
     * value once more only to size it, is skipped. A value that grows past the bound meanwhile is
     * the race the apply already guards against.
     */
    private boolean mayOutgrow(Request.Batch batch, long budget) {
        long largest = store.largestValueBytes();
        for (Request op : batch.ops()) {
            if (op instanceof Request.Set set) {
                largest = Math.max(largest, set.value().length());
            }
        }
        long perElement = 1 + 4 + largest; // VALUE: type byte, length, bytes
        return largest > budget || perElement > budget / Math.max(1, batch.ops().size());
    }

    /** The dry run: whether the reply fits, from the values the GETs would read now. */
    private boolean fits(Request.Batch batch, BatchReads reads, long budget) {
        Map<ByteArrayWrapper, ByteArrayWrapper> overlay = new HashMap<>();
        long size = 0;
        for (int i = 0; i < batch.ops().size(); i++) {
            Request op = batch.ops().get(i);
            size +=
                    switch (op) {
                        case Request.Get get -> {
                            ByteArrayWrapper value =
                                    overlay.containsKey(get.key())
                                            ? overlay.get(get.key())
                                            : readOrNull(reads, i, get.key());
                            yield elementSize(
                                    value == null ? NOT_FOUND : new Response.Value(value));
                        }
                        case Request.Set set -> {
                            overlay.put(set.key(), set.value());
                            yield elementSize(OK);
                        }
                        case Request.Delete delete -> {
                            overlay.put(delete.key(), null);
                            yield elementSize(OK);
                        }
                        default ->
                                throw new IllegalStateException(
                                        "a batch holds only GET, SET and DELETE: " + op);
                    };
            if (size > budget) {
                return false;
            }
        }
        return true;
    }

    /**
     * Submits the batch's writes, answers its GETs, and queues the reply until the writes are done.
     */
    private void submitChecked(Request.Batch batch, BatchReads reads, long budget) {
        List<Request> ops = batch.ops();
        int n = ops.size();
        Response[] replies = new Response[n];
        List<CompletableFuture<Boolean>> writes = new ArrayList<>(Collections.nCopies(n, null));
        int[] readFrom = new int[n]; // for a GET answered from the overlay: the write it read
        Map<ByteArrayWrapper, Integer> writtenBy = new HashMap<>();
        List<CompletableFuture<Boolean>> submitted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            readFrom[i] = -1;
            Request op = ops.get(i);
            switch (op) {
                case Request.Set set -> {
                    writes.set(i, store.putAsync(set.key(), set.value()));
                    noteWriter(writtenBy, set.key(), i, writes.get(i), reads != null);
                }
                case Request.Delete delete -> {
                    writes.set(i, store.deleteAsync(delete.key()));
                    noteWriter(writtenBy, delete.key(), i, writes.get(i), reads != null);
                }
                case Request.Get get -> {
                    Integer writer = writtenBy.isEmpty() ? null : writtenBy.get(get.key());
                    ByteArrayWrapper value;
                    if (writer != null) {
                        readFrom[i] = writer;
                        value = ops.get(writer) instanceof Request.Set set ? set.value() : null;
                    } else {
                        value = readOrNull(reads, i, get.key());
                    }
                    Response reply = value == null ? NOT_FOUND : new Response.Value(value);
                    Throwable failed = reads == null ? null : reads.failure(i);
                    if (failed != null) {
                        reply = new Response.Error("read failed: " + failed.getMessage());
                    }
                    if (elementSize(reply) > budget) {
                        reply =
                                new Response.Error(
                                        "value grew past the batch's reply limit while the batch"
                                                + " ran");
                    }
                    budget -= elementSize(reply);
                    replies[i] = reply;
                }
                default ->
                        throw new IllegalStateException(
                                "a batch holds only GET, SET and DELETE: " + op);
            }
            if (writes.get(i) != null) {
                submitted.add(writes.get(i));
                budget -= elementSize(OK);
            }
        }
        // A store without a log (MapStore) has done every write already: no need to build allOf's
        // tree.
        CompletableFuture<Void> all =
                submitted.stream().allMatch(CompletableFuture::isDone)
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.allOf(submitted.toArray(CompletableFuture<?>[]::new));
        pending.add(
                all,
                submitted.size(),
                (o, ignored, failure) -> {
                    for (int i = 0; i < n; i++) {
                        if (writes.get(i) != null) {
                            replies[i] =
                                    outcome(writes.get(i), ops.get(i) instanceof Request.Delete);
                        } else if (readFrom[i] >= 0
                                && writes.get(readFrom[i]).isCompletedExceptionally()) {
                            replies[i] =
                                    new Response.Error(
                                            "not stored: the batch's earlier write of this key"
                                                    + " failed");
                        }
                    }
                    V2Session.reply(o, new Response.Batch(List.of(replies)), limits);
                });
    }

    /**
     * The value op {@code i} of the batch reads: its read made beforehand (null if that failed; the
     * element then says so), or a plain get.
     */
    private ByteArrayWrapper readOrNull(BatchReads reads, int i, ByteArrayWrapper key) {
        return reads == null ? store.get(key) : reads.valueOrNull(i);
    }

    /**
     * Remembers which operation last wrote {@code key}, for the batch's later GETs of it, unless
     * the write has already succeeded: then the store holds it, and a GET reads it there like any
     * other (a store without a log does every write at once, and so skips this map); unless the
     * batch's reads were made before its writes ({@code readBefore}, a store on disk). A write that
     * is still pending or has failed is remembered, so that its GET answers with its value or its
     * failure, as the batch's description says.
     */
    private static void noteWriter(
            Map<ByteArrayWrapper, Integer> writtenBy,
            ByteArrayWrapper key,
            int i,
            CompletableFuture<Boolean> write,
            boolean readBefore) {
        if (!readBefore && write.isDone() && !write.isCompletedExceptionally()) {
            if (!writtenBy.isEmpty()) {
                writtenBy.remove(
                        key); // an earlier pending write of the key is overtaken by this done one
            }
        } else {
            writtenBy.put(key, i);
        }
    }

    /** The reply to one completed write. */
    private static Response outcome(CompletableFuture<Boolean> write, boolean isDelete) {
        try {
            boolean found = write.join();
            return isDelete && !found ? NOT_FOUND : OK;
        } catch (CompletionException e) {
            return V2Session.notStored(e.getCause() != null ? e.getCause() : e);
        }
    }

    /** Bytes a reply takes as an element of a batch reply: its frame without the frame header. */
    private static long elementSize(Response reply) {
        return V2Codec.encodedSize(reply) - V2Codec.HEADER_BYTES;
    }
}
