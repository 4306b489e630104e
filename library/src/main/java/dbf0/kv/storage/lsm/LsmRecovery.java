package dbf0.kv.storage.lsm;

import dbf0.common.Words;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalRecovery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What opening the store found, and the opening itself: replay the manifest (cutting a torn last
 * edit), open its tables, replay every log the manifest does not cover yet, oldest first, into
 * memtables (writing a table whenever one fills), write what is left to a level-0 table, name a new
 * log in the manifest, and delete what no edit names: old logs, unfinished tables, old manifests.
 *
 * @param logs what replaying each log found, oldest first (torn tails cut and reported there)
 * @param manifestDroppedBytes bytes of a torn last manifest edit cut off
 * @param tables tables opened
 */
public record LsmRecovery(List<WalRecovery> logs, long manifestDroppedBytes, int tables) {

    /** Copies the list. */
    public LsmRecovery {
        logs = List.copyOf(logs);
    }

    /** Bytes cut from torn log tails. */
    public long droppedLogBytes() {
        return logs.stream().mapToLong(WalRecovery::droppedBytes).sum();
    }

    /** The start-up line. */
    public String summary() {
        long records = logs.stream().mapToLong(WalRecovery::records).sum();
        StringBuilder line =
                new StringBuilder(
                        String.format(
                                "lsm store opened: %s, %s replayed (%s)",
                                Words.count(tables, "table"),
                                Words.count(logs.size(), "log"),
                                Words.count(records, "record")));
        for (WalRecovery log : logs) {
            if (log.droppedBytes() > 0) {
                line.append(
                        String.format(
                                "; a log's torn tail of %s cut (%s)",
                                Words.count(log.droppedBytes(), "byte"), log.problem()));
            }
        }
        if (manifestDroppedBytes > 0) {
            line.append(
                    String.format(
                            "; the manifest's torn last edit of %s cut",
                            Words.count(manifestDroppedBytes, "byte")));
        }
        return line.toString();
    }

    /** The parts an opened store is made of. */
    record Opened(
            LsmCore core,
            ReadPath reads,
            WritePath writes,
            Background background,
            long logNumber,
            LsmRecovery recovery) {}

    static Opened run(LsmOptions options, WalDirectory dir, WalOptions walOptions)
            throws IOException {
        Manifest.Opened opened = Manifest.open(dir);
        Manifest.State st = opened.state();
        List<List<Table>> levels = new ArrayList<>();
        for (int i = 0; i < Version.LEVELS; i++) {
            levels.add(new ArrayList<>());
        }
        Set<String> live = new HashSet<>();
        long largestNumber = st.nextFile;
        int largestValue = 0;
        List<Table> opens = new ArrayList<>();
        try {
            for (ManifestEdit.Added a : st.tables.values()) {
                String name = TableFormat.tableName(a.meta().number());
                Table t = Table.open(dir.open(name), a.meta().number(), dir.describe(name));
                opens.add(t);
                levels.get(a.level()).add(t);
                live.add(name);
                largestValue = Math.max(largestValue, t.meta().maxValue());
            }
        } catch (IOException | RuntimeException e) {
            for (Table t : opens) {
                t.close();
            }
            opened.manifest().close();
            throw e;
        }
        for (int i = 0; i < Version.LEVELS; i++) {
            Version.order(i, levels.get(i));
        }
        List<Long> logs = new ArrayList<>();
        for (String name : dir.list()) {
            largestNumber = Math.max(largestNumber, TableFormat.number(name, ".sst") + 1);
            long log = TableFormat.number(name, ".log");
            largestNumber = Math.max(largestNumber, log + 1);
            if (log >= st.logNumber) {
                logs.add(log);
            }
        }
        logs.sort(null);
        LsmState state =
                new LsmState(new Memtable(-1, options.memtableBytes()), null, new Version(levels));
        LsmCore core = new LsmCore(options, dir, opened.manifest(), state, largestNumber);
        core.clearSeq = st.clearSeq;
        ReadPath reads = new ReadPath(core);
        Background background = new Background(core);
        WritePath writes = new WritePath(core, reads, st.lastSeq, background::wake);
        writes.raiseLargestValue(largestValue);
        try {
            return replay(
                    options,
                    dir,
                    walOptions,
                    opened,
                    st,
                    core,
                    reads,
                    writes,
                    background,
                    logs,
                    live);
        } catch (IOException | RuntimeException e) {
            core.closeFiles();
            throw e;
        }
    }

    private static Opened replay(
            LsmOptions options,
            WalDirectory dir,
            WalOptions walOptions,
            Manifest.Opened opened,
            Manifest.State st,
            LsmCore core,
            ReadPath reads,
            WritePath writes,
            Background background,
            List<Long> logs,
            Set<String> live)
            throws IOException {
        List<WalRecovery> replayed = new ArrayList<>();
        for (long log : logs) {
            String name = TableFormat.logName(log);
            replayed.add(
                    WalRecovery.replayNamed(
                            new Replay(core, writes, background, st.logNumber),
                            walOptions,
                            dir,
                            name));
        }
        long newLog = core.nextFile.getAndIncrement();
        Memtable rest = core.state.active();
        synchronized (core.stateLock) {
            core.install(
                    new LsmState(
                            new Memtable(newLog, options.memtableBytes()),
                            rest,
                            core.state.version()));
        }
        background.flush(rest, newLog);
        for (String name : dir.list()) {
            boolean stale =
                    (TableFormat.number(name, ".sst") >= 0
                                    && !live.contains(name)
                                    && !isLive(core, name))
                            || (TableFormat.number(name, ".log") >= 0
                                    && TableFormat.number(name, ".log") < newLog)
                            || (name.startsWith("MANIFEST-") && !name.equals(core.manifest.name()))
                            || name.equals(Manifest.CURRENT_TEMP);
            if (stale) {
                dir.delete(name);
            }
        }
        LsmRecovery recovery =
                new LsmRecovery(replayed, opened.droppedBytes(), core.state.version().all().size());
        return new Opened(core, reads, writes, background, newLog, recovery);
    }

    private static boolean isLive(LsmCore core, String name) {
        for (Table t : core.state.version().all()) {
            if (TableFormat.tableName(t.number()).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The log's records during replay: into the memtable, flushed whenever it fills. */
    private static final class Replay implements dbf0.kv.storage.Store {
        private final LsmCore core;
        private final WritePath writes;
        private final Background background;
        private final long logNumber;

        Replay(LsmCore core, WritePath writes, Background background, long logNumber) {
            this.core = core;
            this.writes = writes;
            this.background = background;
            this.logNumber = logNumber;
        }

        private void maybeFlush() {
            Memtable full = core.state.active();
            if (full.bytes() < core.options.memtableBytes()) {
                return;
            }
            synchronized (core.stateLock) {
                core.install(
                        new LsmState(
                                new Memtable(-1, core.options.memtableBytes()),
                                full,
                                core.state.version()));
            }
            try {
                background.flush(full, logNumber); // the logs stay until all of them are in
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public dbf0.common.ByteArrayWrapper get(dbf0.common.ByteArrayWrapper key) {
            return writes.get(key);
        }

        @Override
        public void put(dbf0.common.ByteArrayWrapper key, dbf0.common.ByteArrayWrapper value) {
            writes.put(key, value);
            maybeFlush();
        }

        @Override
        public boolean delete(dbf0.common.ByteArrayWrapper key) {
            boolean existed = writes.delete(key);
            maybeFlush();
            return existed;
        }

        @Override
        public int size() {
            return writes.size();
        }

        @Override
        public void clear() {
            writes.clear();
        }

        @Override
        public void forEach(
                java.util.function.BiConsumer<
                                dbf0.common.ByteArrayWrapper, dbf0.common.ByteArrayWrapper>
                        action) {
            throw new UnsupportedOperationException();
        }
    }
}
