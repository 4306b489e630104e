package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.FlushingThread;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.wal.LogRotation;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * Where the log's records land: the write-ahead log ({@link dbf0.kv.storage.wal.WalStore}) calls
 * this store's put, delete and clear after each record is in the log, one at a time under the log's
 * lock, in log order. Each gets the next sequence number and goes into the active memtable.
 *
 * <p>It also rotates the log: before a write call, if the active memtable is full, it becomes the
 * immutable one (the background thread writes it to a table) and a new memtable with a new log
 * takes the writes. If the previous immutable memtable is still being written, the rotation waits
 * for it, holding the log's lock, so every writer waits: memory stays at two memtables, and the
 * wait is counted as stall time. Writers are also slowed before they submit, when level 0 holds too
 * many tables for reads to stay fast ({@link #throttle}).
 */
final class WritePath implements Store, LogRotation {

    /** The delay per write past the slowdown trigger, for each table past it. */
    static final long SLOWDOWN_NANOS = 100_000;

    private final LsmCore core;
    private final ReadPath reads;
    private final Runnable wakeBackground;

    /** The last sequence number handed out; under the log's lock. */
    private long lastSeq;

    private volatile long largestValue;

    /** Probes of the deletes submitted and not yet applied, by key. */
    private final ConcurrentHashMap<ByteArrayWrapper, Probe> probes = new ConcurrentHashMap<>();

    WritePath(LsmCore core, ReadPath reads, long lastSeq, Runnable wakeBackground) {
        this.core = core;
        this.reads = reads;
        this.lastSeq = lastSeq;
        this.wakeBackground = wakeBackground;
    }

    long largestValue() {
        return largestValue;
    }

    void raiseLargestValue(long bytes) {
        if (bytes > largestValue) {
            largestValue = bytes;
        }
    }

    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
        raiseLargestValue(value.length()); // before the value is visible, as the contract asks
        add(key, Cell.put(++lastSeq, value));
        core.userBytes.add(key.length() + value.length());
        core.walBytes.add(8 + 1 + 4 + key.length() + 4 + value.length());
    }

    /**
     * Adds a cell to the active memtable and counts it for the key estimate ({@link KeyEstimate}):
     * a key new to the memtable asks what the older sources hold of it, in memory (a few bloom
     * filter probes); a key already there needs nothing more.
     */
    private void add(ByteArrayWrapper key, Cell cell) {
        long hash = Bloom.hash(key);
        LsmState s = core.state;
        Memtable active = s.active();
        Cell was = active.add(key, hash, cell);
        active.count(
                cell, was, was == null ? KeyEstimate.below(s, core.clearSeq, key, hash) : null);
    }

    /**
     * What a delete found before it took the log's lock: {@code existed} was the answer when {@code
     * memtable} took the writes and the last clear was at {@code floor}.
     */
    record Probe(Memtable memtable, long floor, boolean existed) {}

    /**
     * Takes the lookup a delete must answer out of the log's lock: a read of the disk there would
     * hold up every writer. Called before the delete is submitted; its probe waits here, by key,
     * for {@link #delete} under the lock, which checks that nothing changed the answer since. Holds
     * at most one probe per delete in flight (one that failed before it was applied stays until the
     * key's next delete). On an event loop the probe stays in memory (memtables, bloom filters,
     * cached blocks): a loop must not wait for the disk itself; if that cannot answer, the delete
     * reads under the lock as it would without a probe.
     */
    void probe(ByteArrayWrapper key) {
        try {
            Probe probe = reads.probe(key, FlushingThread.current() != null);
            if (probe != null) {
                probes.put(key, probe);
                return;
            }
        } catch (RuntimeException e) {
            // delete() reads under the lock instead, and reports the failure
        }
        probes.remove(key);
    }

    /**
     * True if the key had a value. With a probe from before the lock: the memtables (in memory)
     * hold every write since the probe, so if they hold none of this key and no clear came since,
     * the probe's answer stands. Otherwise a read, usually of the memtable or a cached block.
     */
    @Override
    public boolean delete(ByteArrayWrapper key) {
        Probe probe = probes.remove(key);
        Boolean known = probe == null ? null : confirm(probe, key);
        boolean existed;
        if (known != null) {
            existed = known;
        } else {
            try {
                Cell cell = reads.lookup(key, false);
                existed = cell != null && !cell.isTombstone();
            } catch (RuntimeException e) {
                existed = true; // the tombstone goes in all the same; the answer is a guess
            }
        }
        add(key, Cell.tombstone(++lastSeq));
        core.userBytes.add(key.length());
        core.walBytes.add(8 + 1 + 4 + key.length());
        return existed;
    }

    /**
     * The answer now, given {@code probe}, or null if the probe cannot tell: a memtable that took
     * writes after the probe's is gone to a table. Under the log's lock, so no write is applied
     * meanwhile and the active memtable does not change.
     */
    private Boolean confirm(Probe probe, ByteArrayWrapper key) {
        LsmState s = core.state;
        long hash = Bloom.hash(key);
        Cell cell = s.active().get(key, hash);
        if (cell == null && s.immutable() != null) {
            cell = s.immutable().get(key, hash);
        }
        long floor = core.clearSeq;
        if (cell != null) {
            return !cell.isTombstone() && cell.seq() >= floor; // newer than any table's
        }
        if (floor != probe.floor()) {
            return false; // cleared since, and not written again
        }
        if (probe.memtable() == s.active() || probe.memtable() == s.immutable()) {
            return probe.existed(); // every write since the probe is in these two: none of key
        }
        return null;
    }

    @Override
    public void clear() {
        long seq = ++lastSeq;
        core.clearSeq = seq; // first: readers now ignore every older cell
        core.state.active().clear(seq);
        core.walBytes.add(8 + 1);
    }

    /** Unused by the log, which only applies writes; the store answers reads itself. */
    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) {
        Cell cell = reads.lookup(key, false);
        return cell == null || cell.isTombstone() ? null : cell.value();
    }

    /** The active memtable's entries, for the log's start-up line (an empty new log). */
    @Override
    public int size() {
        return core.state.active().entries();
    }

    @Override
    public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        throw new UnsupportedOperationException("the LSM store's log is never rewritten");
    }

    @Override
    public LogRotation.Next next(long bytes) throws IOException {
        Memtable active = core.state.active();
        if (active.bytes() < core.options.memtableBytes() || core.closing) {
            return null;
        }
        if (!waitForFlush()) {
            return null; // closing: the current log goes on, and is replayed at the next open
        }
        long number = core.nextFile.getAndIncrement();
        String name = TableFormat.logName(number);
        WalFile file = core.dir.open(name);
        try {
            core.dir.sync(); // the new log's name must outlive a power cut before it is acked
        } catch (IOException e) {
            file.close();
            throw e;
        }
        synchronized (core.stateLock) {
            LsmState s = core.state;
            core.immutableLogBytes = bytes;
            core.install(
                    new LsmState(
                            new Memtable(number, core.options.memtableBytes()),
                            s.active(),
                            s.version()));
        }
        wakeBackground.run();
        return new LogRotation.Next(name, file);
    }

    /**
     * The rotation of a store without a log of its own ({@link LsmOptions#ownLog} off), called
     * where its owner's log entries end: makes the active memtable the immutable one when it is
     * full, or whenever {@code force} and it holds anything, after waiting for the previous flush.
     * So a memtable, and the table it becomes, holds whole entries of the owner's log.
     */
    void rotate(boolean force) throws IOException {
        Memtable active = core.state.active();
        boolean empty = active.isEmpty() && active.clearSeq() == 0;
        if (force ? empty : active.bytes() < core.options.memtableBytes()) {
            return;
        }
        if (!waitForFlush()) {
            throw new IOException("the store is closing");
        }
        synchronized (core.stateLock) {
            LsmState s = core.state;
            core.install(
                    new LsmState(
                            new Memtable(s.active().logNumber, core.options.memtableBytes()),
                            s.active(),
                            s.version()));
        }
        wakeBackground.run();
    }

    /** Waits until no memtable is being flushed; an IOException if the store closes meanwhile. */
    void awaitFlushed() throws IOException {
        if (!waitForFlush()) {
            throw new IOException("the store is closing");
        }
    }

    /**
     * Restarts the sequence numbers after {@code seq}: the store's cells are a checkpoint's now.
     */
    void resetSeq(long seq) {
        lastSeq = seq;
    }

    /**
     * Waits, counting the stall, until no memtable is being flushed; false if the store closes
     * meanwhile.
     */
    private boolean waitForFlush() throws IOException {
        synchronized (core.stateLock) {
            if (core.state.immutable() == null) {
                return true;
            }
            long start = System.nanoTime();
            try {
                while (core.state.immutable() != null) {
                    if (core.closing) {
                        return false;
                    }
                    Throwable failure = core.backgroundFailure;
                    if (failure != null) {
                        throw new IOException("the memtable flush is failing: " + failure, failure);
                    }
                    core.stateLock.wait(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a memtable flush", e);
            } finally {
                core.stallNanos.add(System.nanoTime() - start);
            }
            return true;
        }
    }

    /**
     * Before a write is submitted: past the slowdown trigger each write waits a little (more for
     * each table past it); at the stop trigger writes wait for compaction. The pauses let the
     * background thread catch up before reads degrade or level 0 grows without end.
     */
    void throttle() {
        LsmTuning t = core.tuning;
        int l0 = core.state.version().level(0).size();
        if (l0 < t.l0SlowdownTrigger()) {
            return;
        }
        long start = System.nanoTime();
        if (l0 < t.l0StopTrigger()) {
            LockSupport.parkNanos(SLOWDOWN_NANOS * (l0 - t.l0SlowdownTrigger() + 1));
        } else {
            synchronized (core.stateLock) {
                while (core.state.version().level(0).size() >= t.l0StopTrigger()
                        && core.compactionFailure == null
                        && !core.closing) {
                    try {
                        core.stateLock.wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        core.stallNanos.add(System.nanoTime() - start);
    }
}
