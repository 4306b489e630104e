package dbf0.kv.replication;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.StoreRefusedException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

/**
 * The store sessions use on a member of a replicated shard. Writes do not touch the member's own
 * store: they queue on the shard's {@link EntrySubmitter} until the next {@link #flush} (a turn of
 * an event loop, a request of a blocking thread), and its thread sends them to the shard's log, as
 * many as have gathered in one entry; each write's future completes once the entry is committed and
 * applied here, with what the apply found. Neither a write nor a flush waits for the log, so an
 * event loop never does. Reads on the leader wait for a {@link ReadBarrier}; a member that does not
 * lead serves the reads routed to it (a connection that sent READONLY) from its own store, which
 * may be behind.
 *
 * <p>A member that does not lead refuses writes with {@code READONLY}, as a Redis replica does; the
 * routing sends clients to the leader first, so this is met only when leadership moves between a
 * command's routing and its entry's submission.
 */
final class ReplicatedStore implements Store, AutoCloseable {

    /** An entry holds at most this many bytes of writes (a larger single write goes alone). */
    static final int ENTRY_BYTES = 1 << 20;

    private final Store local;
    private final RaftReplication raft;
    private final ReadBarrier barrier;
    private final EntrySubmitter submitter;

    ReplicatedStore(Store local, RaftReplication raft, String name) {
        this.local = local;
        this.raft = raft;
        this.barrier = new ReadBarrier(raft::readIndex, raft::later);
        this.submitter =
                new EntrySubmitter(
                        name,
                        this::append,
                        ENTRY_BYTES,
                        EntrySubmitter.ENTRY_WRITES,
                        EntrySubmitter.QUEUE_BYTES);
    }

    /** On the submitter thread: one entry to the log, if this member leads. */
    private CompletableFuture<RaftReplication.Written> append(List<WriteBatch.Op> ops) {
        if (!raft.view().leading()) {
            return CompletableFuture.failedFuture(
                    new StoreRefusedException(
                            "READONLY", "You can't write against a read only replica."));
        }
        return raft.write(WriteBatch.encode(ops));
    }

    // ---- writes: queued, then sent to the log by the shard's submitter ----

    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return submitter.submit(WriteBatch.Op.put(key, value));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        return submitter.submit(WriteBatch.Op.delete(key));
    }

    @Override
    public CompletableFuture<Boolean> clearAsync() {
        return submitter.submit(WriteBatch.Op.clear());
    }

    /** Lets the queued writes go to the log, and returns at once. */
    @Override
    public void flush() {
        submitter.release();
    }

    /** Waits until every write queued so far is applied (or refused): off an event loop only. */
    @Override
    public void awaitSubmitted() {
        try {
            submitter.awaitQueued();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageFailureException("interrupted while waiting for the shard's log", e);
        }
    }

    @Override
    public long lastWriteIndex() {
        return submitter.lastWriteIndex();
    }

    /** Stops the submitter: queued writes, never acknowledged, are refused. */
    @Override
    public void close() {
        submitter.close();
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        CompletableFuture<Boolean> done = putAsync(key, value);
        flush();
        join(done);
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
        CompletableFuture<Boolean> done = deleteAsync(key);
        flush();
        return join(done);
    }

    @Override
    public void clear() {
        CompletableFuture<Boolean> done = clearAsync();
        flush();
        join(done);
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageFailureException("interrupted while waiting for the shard's log", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new StorageFailureException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    // ---- reads: through the barrier on the leader, from the own store elsewhere ----

    /** Reads may wait for the network: sessions on an event loop read through getAsync. */
    @Override
    public boolean mayWaitForDisk() {
        return true;
    }

    @Override
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        if (!raft.view().leading()) {
            return CompletableFuture.completedFuture(local.get(key));
        }
        return barrier.await().thenApply(ready -> local.get(key));
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        return raft.view().leading() ? join(getAsync(key)) : local.get(key);
    }

    // ---- the rest: this member's own store, as it stands ----

    @Override
    public int size() {
        return local.size();
    }

    @Override
    public long keyCount() {
        return local.keyCount();
    }

    @Override
    public boolean keyCountIsEstimate() {
        return local.keyCountIsEstimate();
    }

    @Override
    public long largestValueBytes() {
        return local.largestValueBytes();
    }

    @Override
    public boolean ordered() {
        return local.ordered();
    }

    @Override
    public List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        return local.scan(from, toExclusive, limit);
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        local.forEach(action);
    }
}
