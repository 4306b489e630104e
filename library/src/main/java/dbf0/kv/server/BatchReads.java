package dbf0.kv.server;

import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.Request;
import dbf0.kv.storage.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The reads of a v2 BATCH on an event loop over a store on disk, made before the batch runs: a
 * batch must size its reply from its GETs' values before it applies anything ({@link V2Batches}),
 * and the loop must not wait for the disk to learn them. So every GET's read is started through
 * {@link Store#getAsync}, those still out are queued on the connection's replies with no reply of
 * their own, and the batch runs once they are done, from these values.
 */
final class BatchReads {

    /** By operation index; null for the batch's writes. */
    private final CompletableFuture<ByteArrayWrapper>[] reads;

    private final boolean waiting;

    private BatchReads(CompletableFuture<ByteArrayWrapper>[] reads, boolean waiting) {
        this.reads = reads;
        this.waiting = waiting;
    }

    /** Starts the batch's reads, queueing on {@code pending} those that are not done at once. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static BatchReads start(Store store, Request.Batch batch, PendingReplies pending) {
        List<Request> ops = batch.ops();
        CompletableFuture<ByteArrayWrapper>[] reads = new CompletableFuture[ops.size()];
        List<CompletableFuture<ByteArrayWrapper>> out = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i) instanceof Request.Get get) {
                reads[i] = store.getAsync(get.key());
                if (!reads[i].isDone()) {
                    out.add(reads[i]);
                }
            }
        }
        if (!out.isEmpty()) {
            pending.addRead(
                    CompletableFuture.allOf(out.toArray(CompletableFuture<?>[]::new)),
                    out.size(),
                    (o, ignored, failure) -> {}); // the batch's own reply follows
        }
        return new BatchReads(reads, !out.isEmpty());
    }

    /** True if some read is still out: the batch waits for its place in the replies. */
    boolean waiting() {
        return waiting;
    }

    /** The value GET {@code i} read, or null if there is none or the read failed. */
    ByteArrayWrapper valueOrNull(int i) {
        return failure(i) == null ? reads[i].join() : null;
    }

    /** Why GET {@code i}'s read failed, or null. */
    Throwable failure(int i) {
        return PendingReplies.failureOf(reads[i]);
    }
}
