package dbf0.kv.replication;

import dbf0.common.FlushingThread;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.StoreRefusedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread per shard that hands writes to the Raft log. Sessions on every event loop queue
 * their writes here ({@link #submit}) and, at the end of a turn, release them ({@link #release});
 * both take a lock for a few list operations and return. The submitter takes every released write,
 * in the order they were queued, packs them into one log entry ({@link WriteBatch}) of at most
 * {@code entryBytes} and {@code entryWrites} writes, and hands the entry to the log; each write's
 * future completes when its entry is committed and applied.
 *
 * <p>Why a thread of its own: Ratis's {@code submitClientRequestAsync} returns only once the entry
 * is appended to the leader's log, which under {@code --fsync always} on a busy disk took 24 ms at
 * the median. Called from the event loops, it held them blocked 78 of 90 seconds, so entries stayed
 * small and each paid its own forced write. Called from here, the loops go on reading, and what
 * arrives while one entry is being appended becomes the next entry: the slower the disk, the larger
 * the entries, as with chapter 3's group commit.
 *
 * <p>Order: one thread submits, in queue order, and an entry is handed to the log only after the
 * one before it was accepted, so entries reach the log in the order their writes were queued. A
 * session queues a connection's writes in the order they came, so no write overtakes an earlier one
 * of its connection; replies go out in pipeline order because the session answers them in that
 * order ({@link dbf0.base.server.PendingReplies}), whichever future completes first.
 *
 * <p>Memory: the queue holds at most {@code queueBytes} (64 MiB by default) of writes, counting a
 * write's key and value and {@link #OVERHEAD} bytes for its objects, so at most about 400,000 small
 * writes; a single write larger than that is taken only into an empty queue. Entries handed to the
 * log are bounded by Ratis's own limit on pending requests (4,096 entries or 64 MiB, its defaults),
 * past which it refuses them. Every connection also stops reading at 1,024 writes in flight. When
 * the queue is full, a write from an event loop is refused at once with {@code TRYAGAIN} (an event
 * loop must not wait; the client retries, and the write was never sent, so a retry cannot apply it
 * twice); a write from any other thread releases what is queued and waits for room, which slows
 * that caller to the pace of the log.
 *
 * <p>Failure: a log that refuses an entry fails that entry's writes with its reason, and the next
 * entry goes on. Anything thrown in the submitter itself is a bug: it fails every write it holds
 * and every later one with a {@link StorageFailureException} that names the cause, logs it, and the
 * thread ends, rather than go on submitting with a write lost from the middle.
 */
final class EntrySubmitter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EntrySubmitter.class);

    /** A write's objects besides its bytes (the queue's record, the op, the wrappers, a future). */
    static final int OVERHEAD = 160;

    /** The queue's bound, in bytes as {@link #memory} counts them. */
    static final long QUEUE_BYTES = 64L << 20;

    /**
     * An entry's writes, at most: past a few thousand, a larger entry saves nothing (its fsync and
     * round trip are already shared that many ways) and holds the state machine's apply longer.
     */
    static final int ENTRY_WRITES = 4096;

    /** What the submitter hands an entry's writes to: the shard's log. */
    @FunctionalInterface
    interface Log {
        /**
         * Submits one entry. Called on the submitter thread only, which may wait in it.
         *
         * @return completes once the entry is applied, or fails with the reason it was refused
         */
        CompletableFuture<RaftReplication.Written> append(List<WriteBatch.Op> ops);
    }

    private record Pending(WriteBatch.Op op, long bytes, CompletableFuture<Boolean> done) {}

    private final Log log;
    private final int entryBytes;
    private final int entryWrites;
    private final long queueBytes;
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final Condition room = lock.newCondition();

    // Guarded by lock.
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private int releasedCount;
    private long queuedBytes;
    private CompletableFuture<Boolean> lastQueued = CompletableFuture.completedFuture(true);
    private StorageFailureException stopped;

    /** The log index of the newest entry whose writes were answered. */
    private final AtomicLong lastWritten = new AtomicLong(-1);

    /**
     * @param name the thread's name
     * @param log where entries go
     * @param entryBytes an entry's bytes of writes at most (a larger single write goes alone)
     * @param entryWrites an entry's writes at most
     * @param queueBytes the queue's bound (see the class comment)
     */
    EntrySubmitter(String name, Log log, int entryBytes, int entryWrites, long queueBytes) {
        this.log = log;
        this.entryBytes = entryBytes;
        this.entryWrites = entryWrites;
        this.queueBytes = queueBytes;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        thread.start();
    }

    // ---- the callers' side: never waits for the log ----

    /**
     * Queues one write; it goes to the log at the next {@link #release}, or sooner.
     *
     * @return completes (for a delete, true if it found its key) once the write is applied
     */
    CompletableFuture<Boolean> submit(WriteBatch.Op op) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        long bytes = memory(op);
        lock.lock();
        try {
            while (stopped == null && queuedBytes > 0 && queuedBytes + bytes > queueBytes) {
                if (FlushingThread.current() != null) {
                    return CompletableFuture.failedFuture(
                            new StoreRefusedException(
                                    "TRYAGAIN",
                                    "the shard's log is "
                                            + (queuedBytes >> 20)
                                            + " MiB of writes behind; retry shortly"));
                }
                releaseLocked(); // what is queued may be this caller's own: let it go first
                room.awaitUninterruptibly();
            }
            if (stopped != null) {
                return CompletableFuture.failedFuture(stopped);
            }
            queue.addLast(new Pending(op, bytes, done));
            queuedBytes += bytes;
            lastQueued = done;
        } finally {
            lock.unlock();
        }
        return done;
    }

    /** Lets every write queued so far go to the log; returns at once. */
    void release() {
        lock.lock();
        try {
            releaseLocked();
        } finally {
            lock.unlock();
        }
    }

    private void releaseLocked() {
        if (releasedCount < queue.size()) {
            releasedCount = queue.size();
            released.signal();
        }
    }

    /** Releases what is queued and waits until the last of it is applied (or refused). */
    void awaitQueued() throws InterruptedException {
        CompletableFuture<Boolean> last;
        lock.lock();
        try {
            releaseLocked();
            last = lastQueued;
        } finally {
            lock.unlock();
        }
        try {
            last.handle((ok, failure) -> null).get();
        } catch (java.util.concurrent.ExecutionException impossible) {
            throw new AssertionError(impossible); // handle() never fails
        }
    }

    /** The log index of the newest entry whose writes were answered, or -1. */
    long lastWriteIndex() {
        return lastWritten.get();
    }

    // ---- the submitter's side ----

    private void run() {
        List<Pending> batch = List.of();
        try {
            while ((batch = take()) != null) {
                send(batch);
                batch = List.of();
            }
        } catch (InterruptedException closing) {
            stop(new StoreRefusedException("TRYAGAIN", "this node is shutting down"), batch);
        } catch (Throwable t) { // a bug: said loudly, and no write left waiting
            LOG.error("{} stopped; this node takes no more writes", thread.getName(), t);
            stop(new StorageFailureException(thread.getName() + " stopped: " + t, t), batch);
        }
    }

    /** The next entry's writes, once some are released; null once closed. */
    private List<Pending> take() throws InterruptedException {
        lock.lock();
        try {
            while (releasedCount == 0 && stopped == null) {
                released.await();
            }
            if (stopped != null) {
                return null;
            }
            List<Pending> batch = new ArrayList<>(Math.min(releasedCount, entryWrites));
            long bytes = 0;
            long freed = 0;
            while (releasedCount > 0 && batch.size() < entryWrites) {
                Pending next = queue.peekFirst();
                long size = entrySize(next.op());
                if (!batch.isEmpty() && bytes + size > entryBytes) {
                    break;
                }
                queue.removeFirst();
                releasedCount--;
                batch.add(next);
                bytes += size;
                freed += next.bytes();
            }
            queuedBytes -= freed;
            room.signalAll();
            return batch;
        } finally {
            lock.unlock();
        }
    }

    private void send(List<Pending> batch) {
        List<WriteBatch.Op> ops = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            ops.add(p.op());
        }
        log.append(ops).whenComplete((written, failure) -> answer(batch, written, failure));
    }

    private void answer(List<Pending> batch, RaftReplication.Written written, Throwable failure) {
        if (failure != null) {
            Throwable cause = unwrap(failure);
            batch.forEach(p -> p.done().completeExceptionally(cause));
            return;
        }
        lastWritten.accumulateAndGet(written.index(), Math::max); // before any reply reads it
        for (int i = 0; i < batch.size(); i++) {
            boolean isDelete = batch.get(i).op().kind() == WriteBatch.DELETE;
            batch.get(i)
                    .done()
                    .complete(!isDelete || written.found()[i] == StoreStateMachine.FOUND);
        }
    }

    /** Fails {@code batch} and everything queued with {@code why}, and every later write too. */
    private void stop(StorageFailureException why, List<Pending> batch) {
        List<Pending> left;
        lock.lock();
        try {
            if (stopped == null) {
                stopped = why;
            }
            left = new ArrayList<>(queue);
            queue.clear();
            releasedCount = 0;
            queuedBytes = 0;
            room.signalAll();
        } finally {
            lock.unlock();
        }
        batch.forEach(p -> p.done().completeExceptionally(why));
        left.forEach(p -> p.done().completeExceptionally(why));
    }

    /**
     * Refuses every write still queued (none was acknowledged, so none is lost) and every later
     * one, and ends the thread; entries already handed to the log are answered by it, or by its
     * write timeout.
     */
    @Override
    public void close() {
        stop(new StoreRefusedException("TRYAGAIN", "this node is shutting down"), List.of());
        lock.lock();
        try {
            released.signalAll();
        } finally {
            lock.unlock();
        }
        thread.interrupt(); // a wait between attempts of a refused entry ends too
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the submitter thread is still running: false once closed or stopped by a bug. */
    boolean running() {
        return thread.isAlive();
    }

    /** A write's share of an entry's bytes: its key and value and a few bytes of framing. */
    private static long entrySize(WriteBatch.Op op) {
        return 16L + bytesOf(op);
    }

    /** A write's share of the queue's memory. */
    static long memory(WriteBatch.Op op) {
        return OVERHEAD + bytesOf(op);
    }

    private static long bytesOf(WriteBatch.Op op) {
        return (op.key() == null ? 0 : op.key().length())
                + (op.value() == null ? 0 : op.value().length());
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
