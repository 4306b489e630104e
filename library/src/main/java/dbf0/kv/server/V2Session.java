package dbf0.kv.server;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.storage.Store;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Protocol v2 on the server: a persistent connection of length-prefixed frames, every request
 * answered in order. All the complete frames in one read are answered together, so a pipelining
 * client's requests cost one read and one write system call for many operations.
 *
 * <p>Writes (SET, DELETE, a BATCH's) are submitted to the store and answered once it has done them:
 * every write of one read is submitted before any is waited for, so that a store with a write-ahead
 * log can make them durable with one fsync ({@link PendingReplies} says why and how far). A GET,
 * PING or BATCH behind them runs once they are answered, so it sees them.
 *
 * <p>On an event loop over a store on disk, reads go through {@link Store#getAsync}: a read that
 * needs the disk is queued like a write, in order, and the loop serves other connections meanwhile.
 *
 * <p>A well-formed GET, SET, DELETE, PING or BATCH is answered in place by {@link V2InPlace}, with
 * no objects per operation; the decoder below takes everything else.
 *
 * <p>Errors: a malformed frame whose length was sane gets an ERROR reply and the connection goes on
 * (the next frame starts right after it); a frame longer than the limit or a bad preamble gets an
 * ERROR reply and the connection is closed, because its framing can no longer be trusted.
 */
final class V2Session implements ByteSession {

    private static final Response OK = new Response.Ok();
    private static final Response NOT_FOUND = new Response.NotFound();

    /** A batch reply's type byte and element count. */
    private static final long BATCH_HEADER = 1 + 4;

    private final Store store;
    private final ProtocolLimits limits;
    private final V2InPlace inPlace;
    private final V2Ranges ranges;
    private final V2ClusterRouting cluster;
    private boolean preambleSeen;
    private int needed;

    V2Session(Store store, ProtocolLimits limits) {
        this(store, limits, false, null);
    }

    /**
     * @param asyncReads read through {@link Store#getAsync} and queue the replies while reads are
     *     out (an event loop over a store on disk), instead of a plain get
     * @param cluster this node's routing in a cluster, or null for a standalone server: a cluster
     *     node decodes every frame, to check its keys' slots, and skips the in-place path
     */
    V2Session(Store store, ProtocolLimits limits, boolean asyncReads, V2ClusterRouting cluster) {
        this.store = store;
        this.cluster = cluster;
        this.limits = limits;
        this.asyncReads = asyncReads;
        this.inPlace = new V2InPlace(store, limits, asyncReads);
        this.ranges = new V2Ranges(store, limits);
        this.pending =
                new PendingReplies(store::flush); // every wait for the writes flushes them first
    }

    @Override
    public Next onRead(ByteBuffer in, OutputBuffer out) throws ProtocolException {
        if (!preambleSeen) {
            try {
                if (!V2Codec.decodePreamble(in)) {
                    return Next.READ_MORE;
                }
            } catch (ProtocolException fatal) {
                reply(out, new Response.Error(fatal.getMessage()));
                throw fatal;
            }
            preambleSeen = true;
        }
        while (true) {
            if (held != null) {
                // A request that must see this connection's earlier writes runs once they are
                // answered.
                if (!pending.writeCompleted(out)) {
                    return Next.AWAIT;
                }
                Object request = held;
                held = null;
                if (request instanceof ProtocolException fatal) {
                    reply(out, new Response.Error(fatal.getMessage()));
                    throw fatal;
                }
                if (request instanceof Request.Batch batch) {
                    if (asyncReads && reads == null) {
                        reads = BatchReads.start(store, batch, pending);
                        if (reads.waiting()) {
                            held = batch; // its reads are out: it runs once they are done
                            continue;
                        }
                    }
                    owned(batch, out, () -> submitBatch(batch, out));
                    reads = null;
                } else if (isWrite((Request) request)) {
                    owned((Request) request, out, () -> submitWrite((Request) request));
                } else if (asyncReads && request instanceof Request.Get get) {
                    owned(get, out, () -> readLater(get, out));
                } else if (asyncReads && request instanceof Request.Range range) {
                    pending.addRead(ranges.answerOffLoop(range), 1, (o, r, f) -> reply(o, r));
                } else {
                    owned((Request) request, out, () -> reply(out, apply((Request) request)));
                }
            }
            Next pause = pending.beforeDecoding(out); // the rest waits in the input buffer
            if (pause != null) {
                return pause;
            }
            if (cluster == null && inPlace.tryAnswer(in, out, pending)) {
                continue; // the common requests, with no garbage; the rest is decoded below
            }
            DecodeResult<Request> result;
            try {
                result = V2Codec.decodeRequest(in, limits);
            } catch (ProtocolException fatal) {
                held = fatal; // its error reply goes after the replies of the writes before it
                continue;
            }
            switch (result) {
                case DecodeResult.Incomplete<Request> incomplete -> {
                    needed = incomplete.neededBytes();
                    return pending.endOfInput(out);
                }
                case DecodeResult.Frame<Request> frame -> {
                    Request request = frame.value();
                    if (cluster != null && request instanceof Request.Topology) {
                        Response map = cluster.topology(); // reads no key, keeps its place
                        pending.reply(out, o -> reply(o, map));
                        continue;
                    }
                    // A write may not pass a read still out: that read must not see it.
                    if (isWrite(request) && pending.readsInFlight() == 0) {
                        owned(request, out, () -> submitWrite(request));
                    } else {
                        held = request; // a GET, PING, RANGE or BATCH: after the writes before it
                    }
                }
                case DecodeResult.Invalid<Request> invalid -> {
                    Response error = new Response.Error(invalid.message());
                    pending.reply(
                            out,
                            o -> reply(o, error)); // reads nothing: it need not wait, only keep
                    // its place
                }
            }
        }
    }

    /** Replies waiting for their writes ({@link PendingReplies}: why a read's writes go first). */
    private final PendingReplies pending;

    /** A decoded request, or a fatal error, that waits for the pending writes before it. */
    private Object held;

    /** Whether reads go through {@link Store#getAsync} (see the constructor). */
    private final boolean asyncReads;

    /** The held batch's reads, once started (a store on disk reads them before the batch runs). */
    private BatchReads reads;

    /**
     * The value op {@code i} of the held batch reads: its read made beforehand (null if that
     * failed; the element then says so), or a plain get.
     */
    private ByteArrayWrapper readOrNull(int i, ByteArrayWrapper key) {
        return reads == null ? store.get(key) : reads.valueOrNull(i);
    }

    /**
     * A GET on a store that may wait for a disk, with nothing queued before it: answered now if the
     * value was in memory, else once the read is done.
     */
    private void readLater(Request.Get get, OutputBuffer out) {
        CompletableFuture<ByteArrayWrapper> value = store.getAsync(get.key());
        PendingReplies.Answer<ByteArrayWrapper> answer =
                (o, v, failure) ->
                        reply(
                                o,
                                failure != null
                                        ? new Response.Error("read failed: " + failure.getMessage())
                                        : v == null ? NOT_FOUND : new Response.Value(v));
        if (value.isDone() && pending.isEmpty()) {
            Throwable failure = PendingReplies.failureOf(value);
            answer.write(out, failure == null ? value.join() : null, failure);
        } else {
            pending.addRead(value, 1, answer);
        }
    }

    @Override
    public CompletableFuture<?> awaiting() {
        return pending
                .allDone(); // asked right after onRead returned AWAIT, with nothing changed since
    }

    private static boolean isWrite(Request request) {
        return request instanceof Request.Set || request instanceof Request.Delete;
    }

    /** Runs {@code work}, on a cluster node only while it owns the request's keys (else MOVED). */
    private void owned(Request request, OutputBuffer out, Runnable work) {
        Response refused = V2ClusterRouting.runIfOwned(cluster, request, work);
        if (refused != null) {
            pending.reply(out, o -> reply(o, refused));
        }
    }

    /** Submits a SET or DELETE and queues its reply. */
    private void submitWrite(Request request) {
        if (request instanceof Request.Set set) {
            pending.add(
                    store.putAsync(set.key(), set.value()),
                    1,
                    (o, stored, failure) -> reply(o, failure == null ? OK : notStored(failure)));
        } else if (request instanceof Request.Delete delete) {
            pending.add(
                    store.deleteAsync(delete.key()),
                    1,
                    (o, found, failure) ->
                            reply(
                                    o,
                                    failure != null ? notStored(failure) : found ? OK : NOT_FOUND));
        }
    }

    private static Response notStored(Throwable failure) {
        return new Response.Error("not stored: " + failure.getMessage());
    }

    /**
     * Runs a request that writes nothing: a GET, a PING or a RANGE (writes and batches are
     * submitted).
     */
    private Response apply(Request request) {
        return switch (request) {
            case Request.Get get -> {
                ByteArrayWrapper value = store.get(get.key());
                yield value == null ? NOT_FOUND : new Response.Value(value);
            }
            case Request.Ping ping -> OK;
            case Request.Range range -> ranges.answer(range);
            case Request.Topology t ->
                    new Response.Error("not a cluster node (no --cluster-nodes)");
            default -> throw new IllegalStateException("not run synchronously: " + request);
        };
    }

    /**
     * A batch's reply must fit in one frame. Its size is worked out first, from the sizes of the
     * values its GETs would read now, and a batch whose reply would not fit gets an ERROR reply
     * with nothing applied. GETs see the batch's own earlier SETs and DELETEs, so the dry run
     * tracks those in a small overlay instead of touching the store. The dry run is skipped when
     * the store's bound on value lengths ({@link Store#largestValueBytes()}) already shows that the
     * reply fits ({@link #mayOutgrow}).
     *
     * <p>Then every write of the batch is submitted at once and the batch's reply waits for them
     * all (one fsync for the batch under a log, not one per write). A GET of a key the batch wrote
     * earlier is answered from the overlay, since that write is not in the store until it is
     * durable; if that write then fails, the GET's element is an ERROR too, so the client is never
     * shown a value that was not kept. Other GETs read the store now.
     *
     * <p>Race, honestly: another connection can grow a value between the check and the apply. The
     * apply then keeps a budget too, and a GET whose value no longer fits is answered with an ERROR
     * element in place of the value; the batch's writes are applied either way.
     */
    private void submitBatch(Request.Batch batch, OutputBuffer out) {
        long budget = limits.maxFrameBytes() - BATCH_HEADER;
        if (mayOutgrow(batch, budget) && !fits(batch, budget)) {
            reply(
                    out,
                    new Response.Error(
                            "batch reply would exceed the "
                                    + limits.maxFrameBytes()
                                    + "-byte frame limit; nothing applied (ask for fewer or smaller"
                                    + " values per batch)"));
            return;
        }
        submitChecked(batch, budget);
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
    private boolean fits(Request.Batch batch, long budget) {
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
                                            : readOrNull(i, get.key());
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
    private void submitChecked(Request.Batch batch, long budget) {
        List<Request> ops = batch.ops();
        int n = ops.size();
        Response[] replies = new Response[n];
        List<CompletableFuture<Boolean>> writes =
                new ArrayList<>(java.util.Collections.nCopies(n, null));
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
                        value = readOrNull(i, get.key());
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
                    reply(o, new Response.Batch(List.of(replies)));
                });
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
        } catch (java.util.concurrent.CompletionException e) {
            return notStored(e.getCause() != null ? e.getCause() : e);
        }
    }

    /** Bytes a reply takes as an element of a batch reply: its frame without the frame header. */
    private static long elementSize(Response reply) {
        return V2Codec.encodedSize(reply) - V2Codec.HEADER_BYTES;
    }

    private void reply(OutputBuffer out, Response response) {
        try {
            V2Codec.encode(response, out.reserve(V2Codec.encodedSize(response)), limits);
        } catch (IllegalArgumentException overLimit) {
            // Only reachable through the race applyBatch describes; the client still gets an answer
            // in order, and the connection stays in step.
            Response error =
                    new Response.Error("reply over the frame limit: " + overLimit.getMessage());
            V2Codec.encode(error, out.reserve(V2Codec.encodedSize(error)), limits);
        }
    }

    @Override
    public int bytesNeeded() {
        return needed;
    }

    @Override
    public void onEndOfStream(int unconsumed) throws EOFException {
        if (unconsumed > 0) {
            throw new EOFException(
                    "stream ended inside a v2 frame, " + unconsumed + " bytes into it");
        }
    }
}
