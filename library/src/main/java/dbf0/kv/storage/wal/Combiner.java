package dbf0.kv.storage.wal;

import dbf0.common.FlushingThread;
import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Combining: one write call for the records of many callers, with no thread switch. It serves every
 * write under {@code interval} and {@code never}, and under {@code always} the writes of an event
 * loop, which flushes once per turn ({@link dbf0.common.FlushingThread}).
 *
 * <p>With no fsync on a write's path to share, handing each write to a thread and back would be
 * most of its cost, and a write call per record most of the rest. So the caller's thread leaves its
 * record in a lane of pending records (under a lock of its own, never held across a write); its
 * future stays incomplete, and nothing is written or applied yet, so no reader can see it. A caller
 * about to wait calls {@link #flush}: holding the log's lock, it takes the pending records (an
 * event loop its own lane's, any other thread every lane's: flat combining), encodes them straight
 * into one buffer (no array per record), writes that with one write call, under {@code always}
 * forces it, applies the records in order, and after letting go of the lock completes their
 * futures. The lock keeps the store equal to a replay of the log: appends and applies happen in one
 * order, whichever lanes the records came from.
 *
 * <p>Under {@code always} the log's lock is held across the fsync, as an event loop that fsyncs
 * before it sleeps (Redis's {@code beforeSleep}) holds up its own work; other loops go on
 * accepting, and what they accept meanwhile shares the next flush's fsync.
 *
 * <p>Pending records are bounded: sessions flush before they wait, and any caller that finds
 * {@value #PENDING_LIMIT} pending flushes them itself. As a safety net the writer thread calls
 * {@link #flushLate}, so a caller that forgets to flush gets a slow write, not a hang.
 */
final class Combiner {

    /**
     * Records waiting for a flush at most: the submitter that reaches it flushes them itself.
     * Sessions flush long before; this bounds a caller that submits many writes before it waits, as
     * the queue's capacity does under always.
     */
    static final int PENDING_LIMIT = WalStore.QUEUE_CAPACITY;

    /** Bytes a flush gathers into one write call at most; a bigger record is written alone. */
    private static final int FLUSH_BYTES = 16 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(Combiner.class);

    private final WalLog log;
    private final WalRewrite rewrite;

    /** How long a record may wait before {@link #flushLate} writes it. */
    private final long lateFlushNanos;

    /**
     * Records accepted and not yet written, in lanes: one per event loop ({@link FlushingThread}),
     * which its end-of-turn flush takes alone, and one shared by every other thread, which any
     * flush of theirs takes with all the others (flat combining). A loop that wrote another loop's
     * records would complete them on its thread, and the other loop would need a wake-up to answer
     * them; with a lane of its own each loop writes, applies and answers its own. One lane per loop
     * thread that ever writes: as many as the server has loops.
     */
    private final Lane shared = new Lane();

    private final CopyOnWriteArrayList<Lane> lanes = new CopyOnWriteArrayList<>(List.of(shared));

    private final ThreadLocal<Lane> loopLane =
            ThreadLocal.withInitial(
                    () -> {
                        Lane lane = new Lane();
                        lanes.add(lane);
                        return lane;
                    });

    /** Set by {@link #close}; read by {@link #accept} holding its lane's lock. */
    private volatile boolean closed;

    /** A flush's records are gathered here, for one write call; under the log's lock. */
    private ByteBuffer batchBuffer = ByteBuffer.allocate(64 * 1024);

    Combiner(WalLog log, WalRewrite rewrite, long lateFlushNanos) {
        this.log = log;
        this.rewrite = rewrite;
        this.lateFlushNanos = lateFlushNanos;
    }

    /** One lane of pending records. */
    private static final class Lane {
        /**
         * Guards the fields below; taken inside the log's lock when both are held. Accepting a
         * record needs only this one, so a loop goes on accepting while a flush holds the log's
         * lock (under always across its fsync), and its records join the next flush.
         */
        final ReentrantLock lock = new ReentrantLock();

        /** Accepted, not yet written, in the order they were accepted. */
        List<Pending> pending = new ArrayList<>();

        /** When the oldest of {@link #pending} was accepted. */
        long sinceNanos;

        /** {@code pending.size()}, written under the lock, read without it by {@link #flush}. */
        volatile int count;

        /** Takes the lane's records (in order), leaving it empty. */
        List<Pending> take() {
            lock.lock();
            try {
                if (pending.isEmpty()) {
                    return List.of();
                }
                List<Pending> taken = pending;
                pending = new ArrayList<>(taken.size());
                count = 0;
                return taken;
            } finally {
                lock.unlock();
            }
        }
    }

    /** A record accepted, and what its flush found. */
    static final class Pending {
        final WalRecord record;
        final int size;
        final CompletableFuture<Boolean> done;
        // Set by the flush under the lock, read by the same thread after it lets go of the lock.
        boolean result;
        boolean applied;
        StorageFailureException failure;

        Pending(WalRecord record, int size, CompletableFuture<Boolean> done) {
            this.record = record;
            this.size = size;
            this.done = done;
        }
    }

    /** Leaves the record for the next {@link #flush}; the caller checked its size. */
    CompletableFuture<Boolean> accept(WalRecord record) {
        int size = (int) WalRecord.encodedSize(record);
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        boolean atLimit;
        Lane lane = FlushingThread.current() != null ? loopLane.get() : shared;
        lane.lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(
                        new StorageFailureException("the store is closed"));
            }
            StorageFailureException failure = log.broken;
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (lane.pending.isEmpty()) {
                lane.sinceNanos = System.nanoTime();
            }
            lane.pending.add(new Pending(record, size, done));
            lane.count = lane.pending.size();
            atLimit = lane.pending.size() >= PENDING_LIMIT;
        } finally {
            lane.lock.unlock();
        }
        if (atLimit) {
            flush();
        }
        return done;
    }

    /**
     * Writes pending records with one write call, applies them, completes them: on an event loop
     * its own lane's, on any other thread every lane's. A thread that is not a loop returns only
     * once every record accepted before the call is applied, even one that another thread's flush
     * has taken and is still writing: a caller such as MIGRATE then reads them in the store.
     */
    void flush() {
        Lane own = FlushingThread.current() != null ? loopLane.get() : null;
        if (own != null && own.count == 0) {
            return; // none of this loop's records wait: a flush that took them completes them
        }
        if (own == null && noneWaiting()) {
            // A flush that took records holds the log's lock until they are applied: wait it out.
            log.lock.lock();
            log.lock.unlock();
            return;
        }
        // A FileChannel call by a thread whose interrupt flag is set closes the channel for every
        // thread: the caller is a session's thread, so set its flag aside until the write is done.
        // (An interrupt during the call still closes it; FileChannelDirectory then opens it again.)
        boolean interrupted = Thread.interrupted();
        try {
            List<Pending> written;
            log.lock.lock();
            try {
                written = own != null ? writeTaken(own.take()) : writePending();
            } finally {
                log.lock.unlock();
            }
            complete(written); // not under the lock: a completion runs callbacks (an event loop's)
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean noneWaiting() {
        for (Lane lane : lanes) {
            if (lane.count != 0) {
                return false;
            }
        }
        return true;
    }

    /** The safety net: flushes the pending records if the oldest has waited too long. */
    void flushLate() {
        List<Pending> written;
        log.lock.lock();
        try {
            if (nanosUntilLate(System.nanoTime(), 1) > 0) {
                return;
            }
            written = writePending();
        } finally {
            log.lock.unlock();
        }
        complete(written);
    }

    /** Nanoseconds from {@code now} until the oldest pending record is late. */
    long nanosUntilLate(long now, long ifNonePending) {
        long until = ifNonePending;
        boolean any = false;
        for (Lane lane : lanes) {
            lane.lock.lock();
            try {
                if (!lane.pending.isEmpty()) {
                    long left = lane.sinceNanos + lateFlushNanos - now;
                    until = any ? Math.min(until, left) : left;
                    any = true;
                }
            } finally {
                lane.lock.unlock();
            }
        }
        return until;
    }

    /**
     * Refuses every record from now on; under the log's lock, so that the flush that follows takes
     * the last of them.
     */
    void close() {
        closed = true;
        log.closed = true;
        for (Lane lane : lanes) {
            // an accept that found the store open holds its lane's lock until its record is in
            lane.lock.lock();
            lane.lock.unlock();
        }
    }

    /** Takes every lane's pending records and writes them, as {@link #writeTaken} does. */
    List<Pending> writePending() {
        List<Pending> taken = new ArrayList<>();
        for (Lane lane : lanes) {
            taken.addAll(lane.take());
        }
        return writeTaken(taken);
    }

    /**
     * Writes, applies and judges {@code taken} (under the log's lock); returns it for {@link
     * #complete} once the lock is let go.
     */
    private List<Pending> writeTaken(List<Pending> taken) {
        if (taken.isEmpty()) {
            return taken;
        }
        try {
            for (int from = 0; from < taken.size(); ) {
                long bytes = taken.get(from).size;
                int to = from + 1;
                while (to < taken.size() && bytes + taken.get(to).size <= FLUSH_BYTES) {
                    bytes += taken.get(to).size;
                    to++;
                }
                writeGroup(taken.subList(from, to), (int) bytes);
                from = to;
            }
            rewrite.maybeStart();
        } catch (RuntimeException | Error e) {
            // A bug (or no memory), not a disk: refuse writes from now on, and fail what is left
            // rather than leave its waiters hanging.
            LOG.error("a flush of the log failed; writes are refused from now on", e);
            log.broken =
                    new StorageFailureException(
                            "a flush of the log failed ("
                                    + e
                                    + "); the writes it had not applied may or may not be kept",
                            e);
            for (Pending p : taken) {
                if (!p.applied && p.failure == null) {
                    p.failure = log.broken;
                }
            }
        }
        return taken;
    }

    /**
     * One write call for {@code group} ({@code size} bytes), under {@code always} one force, then
     * its applies; under the lock.
     */
    private void writeGroup(List<Pending> group, int size) {
        if (log.broken != null) {
            for (Pending p : group) {
                p.failure = log.broken;
            }
            return;
        }
        ByteBuffer bytes = encode(group, size);
        boolean always = log.options.fsync() == FsyncPolicy.ALWAYS;
        try {
            log.beforeAppend();
            log.file.write(bytes.duplicate(), log.size);
            if (always) {
                log.file.force();
            }
        } catch (IOException e) {
            StorageFailureException failure = log.failed(always ? "write or force" : "write", e);
            for (Pending p : group) {
                p.failure = failure;
            }
            log.repair(e);
            return;
        }
        // In the kernel now (under always on the disk), so a crash of the process cannot take it
        // back: safe to apply and acknowledge.
        log.written(size, group.size());
        if (always) {
            log.forcedWith(group.size());
        } else {
            log.unforcedRecords += group.size();
        }
        log.copyToRewrite(bytes); // copied: the buffer is reused
        for (Pending p : group) {
            p.result = log.apply(p.record);
            p.applied = true;
        }
    }

    /**
     * The group's records, encoded back to back into the reused buffer; a group bigger than the
     * buffer may grow to ({@link #FLUSH_BYTES}) gets a buffer of its own, not kept.
     */
    private ByteBuffer encode(List<Pending> group, int size) {
        ByteBuffer into = batchBuffer;
        if (into.capacity() < size) {
            if (size > FLUSH_BYTES) {
                into = ByteBuffer.allocate(size); // one record too big to share a write call
            } else {
                int grown = Math.min(batchBuffer.capacity() * 2, FLUSH_BYTES);
                batchBuffer = ByteBuffer.allocate(Math.max(size, grown));
                into = batchBuffer;
            }
        }
        into.clear();
        for (Pending p : group) {
            WalRecord.encode(p.record, into);
        }
        return into.flip();
    }

    /** Completes the futures of a flush's records, in the order they were accepted. */
    static void complete(List<Pending> written) {
        for (Pending p : written) {
            if (p.failure != null) {
                p.done.completeExceptionally(p.failure);
            } else {
                p.done.complete(p.result);
            }
        }
    }
}
