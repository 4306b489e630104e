package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Answers a v2 RANGE from {@link Store#scan}, within bounds the peer cannot raise.
 *
 * <ul>
 *   <li>Pairs: at most the request's limit and at most {@code maxBatchOps} (100,000 by default).
 *   <li>Bytes: the reply fits one frame ({@code maxFrameBytes}); the server stops at the last pair
 *       that fits and says "more".
 *   <li>Memory: the store is read in chunks of at most {@value #CHUNK_PAIRS} pairs, fewer when the
 *       store's bound on value lengths says a chunk could pass the frame's budget; so a RANGE holds
 *       about one frame of pairs plus one chunk, whatever the limit it asked for.
 * </ul>
 *
 * <p>"More" is exact: the last chunk asks for one pair beyond the limit, so a reply that says more
 * has a pair behind it (when the store was read; a writer may delete it meanwhile), and one that
 * says none ends the range.
 */
final class V2Ranges {

    /** The most pairs one call of {@link Store#scan} fetches. */
    static final int CHUNK_PAIRS = 1024;

    /** A RANGE reply's type byte, more flag and count. */
    private static final long REPLY_HEADER = 1 + 1 + 4;

    /** A pair's two length fields. */
    private static final long PAIR_OVERHEAD = 4 + 4;

    private final Store store;
    private final ProtocolLimits limits;

    V2Ranges(Store store, ProtocolLimits limits) {
        this.store = store;
        this.limits = limits;
    }

    Response answer(Request.Range range) {
        if (!store.ordered()) {
            return new Response.Error(
                    "RANGE refused: this store keeps its keys in hash order and cannot scan a"
                            + " range; run the server with --map skiplist or the lsm store");
        }
        try {
            return read(range);
        } catch (UnsupportedOperationException | StorageFailureException e) {
            return new Response.Error("RANGE failed: " + e.getMessage());
        }
    }

    private Response read(Request.Range range) {
        ByteArrayWrapper from = range.afterStart() ? successor(range.start()) : range.start();
        ByteArrayWrapper to = range.end().length() == 0 ? null : range.end();
        List<Response.Pair> pairs = new ArrayList<>();
        if (to != null && from.compareTo(to) >= 0) {
            return new Response.Range(pairs, false);
        }
        int cap = Math.min(range.limit(), limits.maxBatchOps());
        long budget = limits.maxFrameBytes() - REPLY_HEADER;
        long perPair =
                PAIR_OVERHEAD
                        + limits.maxKeyBytes()
                        + Math.min(store.largestValueBytes(), limits.maxValueBytes());
        while (true) {
            long want = cap - pairs.size();
            long byBytes = Math.max(1, Math.min(CHUNK_PAIRS, budget / perPair));
            int ask = (int) Math.min(want + 1, byBytes); // one past the cap tells "more" exactly
            List<KeyValue> chunk = store.scan(from.length() == 0 ? null : from, to, ask);
            for (KeyValue pair : chunk) {
                long size = PAIR_OVERHEAD + pair.key().length() + pair.value().length();
                if (pairs.size() == cap || size > budget) {
                    if (pairs.isEmpty()) {
                        return new Response.Error(
                                "RANGE: the pair at the start of the range ("
                                        + size
                                        + " bytes) does not fit in a "
                                        + limits.maxFrameBytes()
                                        + "-byte frame");
                    }
                    return new Response.Range(pairs, true);
                }
                budget -= size;
                pairs.add(new Response.Pair(pair.key(), pair.value()));
            }
            if (chunk.size() < ask) {
                return new Response.Range(pairs, false); // the store has no more in the range
            }
            from = successor(chunk.getLast().key());
        }
    }

    /** The smallest key after {@code key} in unsigned byte order: {@code key} and a zero byte. */
    private static ByteArrayWrapper successor(ByteArrayWrapper key) {
        return new ByteArrayWrapper(Arrays.copyOf(key.getArray(), key.length() + 1));
    }

    /**
     * As {@link #answer}, on a virtual thread of its own, for a store on disk whose tables a range
     * reads: the event loop goes on serving others, and the reply keeps its place in order. A
     * failed read is answered as an ERROR, as {@link #answer} answers one.
     */
    CompletableFuture<Response> answerOffLoop(Request.Range range) {
        return CompletableFuture.supplyAsync(
                        () -> answer(range), task -> Thread.ofVirtual().start(task))
                .exceptionally(
                        failure -> new Response.Error("read failed: " + failure.getMessage()));
    }
}
