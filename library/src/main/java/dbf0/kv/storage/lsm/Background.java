package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.LogPosition;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's two background threads: one writes the immutable memtable to a level-0 table (writers
 * may be waiting for it), the other runs the compactions the plan asks for, one at a time. Each
 * change follows one order, so a crash at any point loses nothing: write the new table(s) and force
 * them, sync the directory (their names), append the manifest edit and force it, install the new
 * state, and only then delete what the edit made obsolete (a flushed memtable's log, the
 * compaction's inputs).
 *
 * <p>A removed table may still be read by a read that began before; its file is deleted at once (an
 * open file outlives its name) but closed only once those reads have ended ({@link ReadGate}).
 */
final class Background {

    private static final Logger LOG = LoggerFactory.getLogger(Background.class);

    private final LsmCore core;
    private final Thread flusher;
    private final Thread compactor;
    private final Signal flushSignal = new Signal();
    private final Signal compactSignal = new Signal();

    /** Held across a manifest edit and the install of its state: one edit at a time. */
    private final Object editLock = new Object();

    /**
     * Each flush or compaction step holds its read lock; {@link #pause} takes the write lock, so
     * that no step runs while the store's tables are replaced under it ({@link LsmStore#restore}).
     */
    private final ReentrantReadWriteLock jobs = new ReentrantReadWriteLock();

    /** Tables removed and not yet closed; guarded by itself, as the two fields below. */
    private final ArrayDeque<Table> retired = new ArrayDeque<>();

    /** Tables closed once the reads of {@link #waitingEpoch} end. */
    private final List<Table> waiting = new ArrayList<>();

    private int waitingEpoch;

    private final ByteArrayWrapper[] cursor = new ByteArrayWrapper[Version.LEVELS];
    private volatile boolean stop;

    /** A wake-up flag and its monitor. */
    private static final class Signal {
        private boolean set;

        synchronized void raise() {
            set = true;
            notifyAll();
        }

        synchronized void await(long millis) throws InterruptedException {
            if (!set) {
                wait(millis);
            }
            set = false;
        }
    }

    Background(LsmCore core) {
        this.core = core;
        this.flusher = new Thread(() -> loop(true), "lsm-flush");
        this.compactor = new Thread(() -> loop(false), "lsm-compaction");
        flusher.setDaemon(true);
        compactor.setDaemon(true);
    }

    void start() {
        flusher.start();
        compactor.start();
    }

    /** Asks both threads for a look at the work now rather than at the next timer. */
    void wake() {
        flushSignal.raise();
        compactSignal.raise();
    }

    /** Finishes the jobs in hand, stops, and closes the tables retired. */
    void stop() {
        stop = true;
        wake();
        try {
            flusher.join(60_000);
            compactor.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (retired) {
            waiting.forEach(Background::close);
            waiting.clear();
            while (!retired.isEmpty()) {
                close(retired.poll());
            }
        }
    }

    /**
     * One thread's loop: the flusher writes the immutable memtable whenever there is one (writers
     * may be waiting for it), the compactor runs what the plan asks for. Two threads, so that a
     * long compaction never holds up a flush.
     */
    private void loop(boolean flushing) {
        Signal signal = flushing ? flushSignal : compactSignal;
        while (!stop) {
            try {
                boolean worked = flushing ? flushStep() : compactStep();
                if (worked && flushing) {
                    compactSignal.raise(); // level 0 has one table more
                }
                closeRetired();
                if (!worked) {
                    signal.await(100);
                }
                if (flushing) {
                    core.backgroundFailure = null;
                } else {
                    core.compactionFailure = null;
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                LOG.error(
                        "the LSM store's {} failed; retrying in a second",
                        flushing ? "flush" : "compaction",
                        e);
                if (flushing) {
                    core.backgroundFailure = e;
                } else {
                    core.compactionFailure = e;
                }
                synchronized (core.stateLock) {
                    core.stateLock.notifyAll(); // waiting writers fail instead of waiting
                }
                try {
                    if (!stop) {
                        signal.await(1000); // stop() ends the pause
                    }
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private boolean flushStep() throws IOException {
        jobs.readLock().lock();
        try {
            LsmState s = core.state;
            if (s.immutable() == null) {
                return false;
            }
            flush(s.immutable(), s.active().logNumber);
            return true;
        } finally {
            jobs.readLock().unlock();
        }
    }

    /** Waits for the flush and compaction in hand to end, and starts no other until resumed. */
    void pause() {
        jobs.writeLock().lock();
    }

    void resume() {
        jobs.writeLock().unlock();
        wake();
    }

    /**
     * Records that the tables hold the owner's log up to {@code applied}, when the last edit did
     * not say so already: an edit of that alone, forced.
     */
    void recordApplied(LogPosition applied) throws IOException {
        synchronized (editLock) {
            if (!core.manifest.state().applied.equals(applied)) {
                apply(List.of(), 0, List.of(), -1, -1, -1, applied);
            }
        }
    }

    /**
     * Writes a checkpoint of the tables the manifest names now into {@code dir}: under the edit
     * lock, so that no flush or compaction removes one of them meanwhile ({@link Checkpoint}).
     */
    Checkpoint.Written checkpoint(java.nio.file.Path dir) throws IOException {
        synchronized (editLock) {
            return Checkpoint.write(core.options.dataDir(), core.manifest.state(), dir);
        }
    }

    private boolean compactStep() throws IOException {
        jobs.readLock().lock();
        int e = core.readGate.enter(); // its inputs are read: a clear must not close them
        try {
            CompactionPlan plan =
                    CompactionPlan.pick(
                            core.state.version(), core.options.compaction(), core.tuning, cursor);
            if (plan == null) {
                return false;
            }
            compact(plan);
            return true;
        } finally {
            core.readGate.leave(e);
            jobs.readLock().unlock();
        }
    }

    /** Writes {@code memtable} to a level-0 table; its log is deleted once the edit is forced. */
    void flush(Memtable memtable, long liveLog) throws IOException {
        List<Table> added = new ArrayList<>();
        if (!memtable.isEmpty()) {
            added.add(write(new MemtableIterator(memtable, null), null));
        }
        long clear = memtable.clearSeq();
        List<Table> removed = new ArrayList<>();
        if (clear > 0) {
            for (Table table : core.state.version().all()) {
                removed.add(table); // a clear in this memtable: every older table goes
            }
        }
        synchronized (editLock) {
            long seq = Math.max(memtable.maxSeq(), clear);
            apply(removed, 0, added, liveLog, seq, clear, memtable.applied());
            synchronized (core.stateLock) {
                LsmState s = core.state;
                core.install(new LsmState(s.active(), null, s.version().with(removed, 0, added)));
            }
        }
        core.flushes.increment();
        retire(removed);
        core.dir.delete(TableFormat.logName(memtable.logNumber));
    }

    private void compact(CompactionPlan plan) throws IOException {
        List<Table> added = new ArrayList<>();
        if (plan.trivialMove() && overlapsNothing(plan)) {
            added.add(plan.inputs().get(0)); // the same file, named at another level
        } else {
            MergingIterator merged = new MergingIterator(iterators(plan.inputs()));
            while (merged.valid()) {
                Table table = write(merged, plan);
                if (table != null) {
                    added.add(table);
                }
                if (table == null && merged.valid()) {
                    throw new IllegalStateException("compaction made no progress");
                }
            }
        }
        List<Table> removed = plan.inputs();
        synchronized (editLock) {
            apply(removed, plan.outputLevel(), added, -1, -1, -1, null);
            synchronized (core.stateLock) {
                LsmState s = core.state;
                core.install(
                        new LsmState(
                                s.active(),
                                s.immutable(),
                                s.version().with(removed, plan.outputLevel(), added)));
            }
        }
        core.compactions.increment();
        if (!(plan.trivialMove() && added.size() == 1 && added.get(0) == removed.get(0))) {
            retire(removed);
        }
    }

    private boolean overlapsNothing(CompactionPlan plan) {
        Table only = plan.inputs().get(0);
        for (Table t : core.state.version().level(plan.outputLevel())) {
            if (t.meta().overlaps(only.meta().smallest(), only.meta().largest())) {
                return false;
            }
        }
        return true;
    }

    private List<KvIterator> iterators(List<Table> tables) {
        List<KvIterator> out = new ArrayList<>();
        for (Table table : tables) {
            out.add(new TableIterator(table, core.cache, false, null));
        }
        return out;
    }

    /**
     * Writes cells from {@code source} into a new table, forced and named durably: all of them for
     * a flush ({@code plan} null), up to the table size for a compaction that splits. Null if every
     * cell was dropped.
     */
    private Table write(KvIterator source, CompactionPlan plan) throws IOException {
        long number = core.nextFile.getAndIncrement();
        String name = TableFormat.tableName(number);
        WalFile file = core.dir.open(name);
        try {
            TableWriter writer =
                    new TableWriter(
                            file,
                            number,
                            plan == null
                                    ? KeyEstimate.olderThan(core, 0, List.of())
                                    : KeyEstimate.olderThan(
                                            core, plan.outputLevel(), plan.inputs()));
            long floor = core.clearSeq;
            for (; source.valid(); source.next()) {
                Cell cell = source.cell();
                if (plan != null) {
                    if (cell.seq() < floor || (plan.dropTombstones() && cell.isTombstone())) {
                        continue; // hidden by a clear, or a tombstone with nothing under it
                    }
                    if (plan.split() && writer.estimatedBytes() >= core.tuning.tableBytes()) {
                        break;
                    }
                }
                writer.add(source.key(), cell);
            }
            if (writer.entries() == 0) {
                file.close();
                core.dir.delete(name);
                return null;
            }
            TableMeta meta = writer.finish();
            core.dir.sync(); // the name, before any manifest edit relies on it
            core.tableBytes.add(meta.bytes());
            return Table.open(file, number, core.dir.describe(name));
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** Appends and forces the edit that makes a flush's or compaction's result the truth. */
    private void apply(
            List<Table> removed,
            int level,
            List<Table> added,
            long log,
            long seq,
            long clear,
            LogPosition applied)
            throws IOException {
        List<ManifestEdit.Added> adds = new ArrayList<>();
        for (Table t : added) {
            adds.add(new ManifestEdit.Added(level, t.meta()));
        }
        Map<Long, ManifestEdit.Added> known = core.manifest.state().tables;
        List<ManifestEdit.Removed> removes = new ArrayList<>();
        for (Table t : removed) {
            ManifestEdit.Added was = known.get(t.number());
            removes.add(new ManifestEdit.Removed(was == null ? 0 : was.level(), t.number()));
        }
        long lastSeq = seq < 0 ? -1 : Math.max(seq, core.manifest.state().lastSeq);
        core.manifest.append(
                new ManifestEdit(adds, removes, log, core.nextFile.get(), lastSeq, clear, applied),
                core.nextFile::getAndIncrement);
    }

    /**
     * Returns once every read that began before the call has ended: two grace periods of the read
     * gate, each waited out (under the lock that serializes its flips).
     */
    void awaitReads() {
        synchronized (retired) {
            for (int round = 0; round < 2; round++) {
                int old = core.readGate.flip();
                while (!core.readGate.drained(old)) {
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
            }
        }
    }

    void retire(List<Table> tables) throws IOException {
        for (Table table : tables) {
            core.dir.delete(TableFormat.tableName(table.number()));
            synchronized (retired) {
                retired.add(table);
            }
        }
    }

    /**
     * Closes the tables whose grace period is over, and starts one for those retired since: never
     * waits, so a long scan delays only the closing.
     */
    private void closeRetired() {
        synchronized (retired) {
            if (!waiting.isEmpty()) {
                if (!core.readGate.drained(waitingEpoch)) {
                    return;
                }
                waiting.forEach(Background::close);
                waiting.clear();
            }
            if (!retired.isEmpty()) {
                waiting.addAll(retired);
                retired.clear();
                waitingEpoch = core.readGate.flip();
                if (core.readGate.drained(waitingEpoch)) {
                    waiting.forEach(Background::close);
                    waiting.clear();
                }
            }
        }
    }

    private static void close(Table table) {
        try {
            table.close();
        } catch (IOException e) {
            LOG.warn("closing {}: {}", table, e.toString());
        }
    }
}
