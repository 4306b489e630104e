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
 * no objects per operation; the decoder below takes everything else. A decoded BATCH goes to {@link
 * V2Batches}, which checks that its reply fits one frame before it applies anything.
 *
 * <p>Errors: a malformed frame whose length was sane gets an ERROR reply and the connection goes on
 * (the next frame starts right after it); a frame longer than the limit or a bad preamble gets an
 * ERROR reply and the connection is closed, because its framing can no longer be trusted.
 */
final class V2Session implements ByteSession {

    static final Response OK = new Response.Ok();
    static final Response NOT_FOUND = new Response.NotFound();

    private final Store store;
    private final ProtocolLimits limits;
    private final V2InPlace inPlace;
    private final V2Ranges ranges;
    private final V2Batches batches;
    private final V2ClusterRouting cluster;

    /** Replies waiting for their writes ({@link PendingReplies}: why a read's writes go first). */
    private final PendingReplies pending;

    /** Whether reads go through {@link Store#getAsync} (see the constructor). */
    private final boolean asyncReads;

    private boolean preambleSeen;
    private int needed;

    /** A decoded request, or a fatal error, that waits for the pending writes before it. */
    private Object held;

    /** The held batch's reads, once started (a store on disk reads them before the batch runs). */
    private BatchReads reads;

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
        this.batches = new V2Batches(store, limits, pending);
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
                    owned(batch, out, () -> batches.submit(batch, reads, out));
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

    /** The ERROR reply to a write the store failed to do. */
    static Response notStored(Throwable failure) {
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

    private void reply(OutputBuffer out, Response response) {
        reply(out, response, limits);
    }

    /** Encodes a reply into {@code out}; one over the frame limit is sent as an ERROR instead. */
    static void reply(OutputBuffer out, Response response, ProtocolLimits limits) {
        try {
            V2Codec.encode(response, out.reserve(V2Codec.encodedSize(response)), limits);
        } catch (IllegalArgumentException overLimit) {
            // Only reachable through the race V2Batches describes; the client still gets an answer
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
