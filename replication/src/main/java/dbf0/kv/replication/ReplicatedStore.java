package dbf0.kv.replication;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.StoreRefusedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The store sessions use on a member of a replicated shard. Writes do not touch the member's own
 * store: they gather until the next {@link #flush} (a turn of an event loop, a request of a
 * blocking thread) and go to the shard's log as one entry; each write's future completes once the
 * entry is committed and applied here, with what the apply found. Reads on the leader wait for a
 * {@link ReadBarrier}; a member that does not lead serves the reads routed to it (a connection that
 * sent READONLY) from its own store, which may be behind.
 *
 * <p>A member that does not lead refuses writes with {@code READONLY}, as a Redis replica does; the
 * routing sends clients to the leader first, so this is met only when leadership moves between a
 * command's routing and its flush.
 */
final class ReplicatedStore implements Store {

    /** A flush's writes go out in entries of at most this many bytes of writes. */
    static final int ENTRY_BYTES = 1 << 20;

    private record Pending(WriteBatch.Op op, CompletableFuture<Boolean> done) {}

    private final Store local;
    private final RaftReplication raft;
    private final ReadBarrier barrier;

    /** Guards {@link #gathered}: held for an add or a swap only. */
    private final Object lock = new Object();

    /** Held across taking the gathered writes and handing them to the engine: keeps their order. */
    private final Object submitting = new Object();

    private List<Pending> gathered = new ArrayList<>();

    /**
     * The log index of the newest entry of writes this store has answered ({@link
     * #lastWriteIndex}).
     */
    private final AtomicLong lastWritten = new AtomicLong(-1);

    ReplicatedStore(Store local, RaftReplication raft) {
        this.local = local;
        this.raft = raft;
        this.barrier = new ReadBarrier(raft::readIndex, raft::later);
    }

    // ---- writes: gathered, then one log entry per flush ----

    private CompletableFuture<Boolean> gather(WriteBatch.Op op) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        synchronized (lock) {
            gathered.add(new Pending(op, done));
        }
        return done;
    }

    @Override
    public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return gather(WriteBatch.Op.put(key, value));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        return gather(WriteBatch.Op.delete(key));
    }

    @Override
    public CompletableFuture<Boolean> clearAsync() {
        return gather(WriteBatch.Op.clear());
    }

    /**
     * Sends what was gathered to the log. Taking the writes and handing them to the engine happen
     * under one lock, so entries reach the log in the order their writes were gathered: a
     * connection's second write never overtakes its first. Gathering goes on meanwhile.
     */
    @Override
    public void flush() {
        synchronized (submitting) {
            List<Pending> writes;
            synchronized (lock) {
                if (gathered.isEmpty()) {
                    return;
                }
                writes = gathered;
                gathered = new ArrayList<>();
            }
            if (!raft.view().leading()) {
                StoreRefusedException refused =
                        new StoreRefusedException(
                                "READONLY", "You can't write against a read only replica.");
                writes.forEach(p -> p.done().completeExceptionally(refused));
                return;
            }
            int from = 0;
            long bytes = 0;
            for (int i = 0; i < writes.size(); i++) {
                bytes += size(writes.get(i).op());
                if (bytes >= ENTRY_BYTES || i == writes.size() - 1) {
                    submit(writes.subList(from, i + 1));
                    from = i + 1;
                    bytes = 0;
                }
            }
        }
    }

    private static long size(WriteBatch.Op op) {
        return 16L
                + (op.key() == null ? 0 : op.key().length())
                + (op.value() == null ? 0 : op.value().length());
    }

    private void submit(List<Pending> writes) {
        List<WriteBatch.Op> ops = writes.stream().map(Pending::op).toList();
        raft.write(WriteBatch.encode(ops))
                .whenComplete(
                        (written, failure) -> {
                            if (written != null) {
                                lastWritten.accumulateAndGet(written.index(), Math::max);
                            }
                            for (int i = 0; i < writes.size(); i++) {
                                CompletableFuture<Boolean> done = writes.get(i).done();
                                if (failure != null) {
                                    done.completeExceptionally(unwrap(failure));
                                } else {
                                    boolean isDelete = ops.get(i).kind() == WriteBatch.DELETE;
                                    done.complete(
                                            !isDelete
                                                    || written.found()[i]
                                                            == StoreStateMachine.FOUND);
                                }
                            }
                        });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    @Override
    public long lastWriteIndex() {
        return lastWritten.get();
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
