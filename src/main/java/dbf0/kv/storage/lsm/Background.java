package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's one background thread: it writes the immutable memtable to a level-0 table (first,
 * since writers may be waiting for it), then runs the compactions the plan asks for, one at a time.
 * Each change follows one order, so a crash at any point loses nothing: write the new table(s) and
 * force them, sync the directory (their names), append the manifest edit and force it, install the
 * new state, and only then delete what the edit made obsolete (a flushed memtable's log, the
 * compaction's inputs).
 *
 * <p>A removed table may still be read by a scan that began before; its file is deleted at once (an
 * open file outlives its name) but closed only {@value #RETIRE_NANOS} ns later.
 */
final class Background {

    static final long RETIRE_NANOS = 30_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(Background.class);

    private record Retired(Table table, long since) {}

    private final LsmCore core;
    private final Thread thread;
    private final ArrayDeque<Retired> retired = new ArrayDeque<>();
    private final ByteArrayWrapper[] cursor = new ByteArrayWrapper[Version.LEVELS];
    private final Object signal = new Object();
    private boolean wake;
    private volatile boolean stop;

    Background(LsmCore core) {
        this.core = core;
        this.thread = new Thread(this::run, "lsm-background");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Asks for a look at the work now rather than at the next timer. */
    void wake() {
        synchronized (signal) {
            wake = true;
            signal.notifyAll();
        }
    }

    /** Finishes the job in hand, stops, and closes the tables it retired. */
    void stop() {
        stop = true;
        wake();
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        while (!retired.isEmpty()) {
            close(retired.poll().table());
        }
    }

    private void run() {
        while (!stop) {
            try {
                if (!step()) {
                    closeRetired(System.nanoTime());
                    synchronized (signal) {
                        if (!wake && !stop) {
                            signal.wait(100);
                        }
                        wake = false;
                    }
                }
                core.backgroundFailure = null;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                LOG.error("the LSM store's background work failed; retrying in a second", e);
                core.backgroundFailure = e;
                synchronized (core.stateLock) {
                    core.stateLock.notifyAll(); // waiting writers fail instead of waiting
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Does one job; false if there was none. */
    boolean step() throws IOException {
        LsmState s = core.state;
        if (s.immutable() != null) {
            flush(s.immutable(), s.active().logNumber);
            return true;
        }
        CompactionPlan plan =
                CompactionPlan.pick(s.version(), core.options.compaction(), core.tuning, cursor);
        if (plan == null) {
            return false;
        }
        compact(plan);
        return true;
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
        apply(removed, 0, added, liveLog, Math.max(memtable.maxSeq(), clear), clear);
        synchronized (core.stateLock) {
            LsmState s = core.state;
            core.install(new LsmState(s.active(), null, s.version().with(removed, 0, added)));
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
        apply(removed, plan.outputLevel(), added, -1, -1, -1);
        synchronized (core.stateLock) {
            LsmState s = core.state;
            core.install(
                    new LsmState(
                            s.active(),
                            s.immutable(),
                            s.version().with(removed, plan.outputLevel(), added)));
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
            TableWriter writer = new TableWriter(file, number);
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
            List<Table> removed, int level, List<Table> added, long log, long seq, long clear)
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
                new ManifestEdit(adds, removes, log, core.nextFile.get(), lastSeq, clear),
                core.nextFile::getAndIncrement);
    }

    private void retire(List<Table> tables) throws IOException {
        long now = System.nanoTime();
        for (Table table : tables) {
            core.dir.delete(TableFormat.tableName(table.number()));
            retired.add(new Retired(table, now));
        }
    }

    private void closeRetired(long now) {
        while (!retired.isEmpty() && now - retired.peek().since() > RETIRE_NANOS) {
            close(retired.poll().table());
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
