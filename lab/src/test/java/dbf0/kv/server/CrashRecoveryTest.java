package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.CheckResult;
import dbf0.kv.check.Dbf0HistoryFormat;
import dbf0.kv.check.Explanation;
import dbf0.kv.check.History;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.check.HistoryRecorder.Op;
import dbf0.kv.check.KvModel;
import dbf0.kv.check.LinearizabilityChecker;
import dbf0.kv.storage.lsm.LsmCensus;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real server in a child JVM, killed with SIGKILL ({@link Process#destroyForcibly}) at random
 * moments while v2 and RESP connections write and read, then started again on the same data dir and
 * read key by key: every acknowledged SET and DELETE must be there, with its latest acknowledged
 * value. Each connection writes only its own keys, so each key has one order of writes; a key may
 * also hold the one write that was in flight when the server died, which was neither acknowledged
 * nor refused. Every connection also reads everyone's keys.
 *
 * <p>Everything the clients did, across all the kills and restarts, is recorded as one history
 * (docs/formats.md; a request in flight at a kill is pending) and checked at the end: it must be
 * linearizable, the reads during the writes and after each restart included.
 *
 * <p>Four stores. The map with its log, whose automatic rewrites are set to fire often (2x, no
 * minimum size), so kills land during rewrites too. The LSM store, with leveled and with tiered
 * compaction, the smallest memtable (64 KiB) and values padded to 400 bytes on average, so kills
 * land among flushes and compactions; its manifest is read after each kill ({@link LsmCensus}) to
 * count the flushes and compactions that finished while the clients ran, and the table files a kill
 * left half made. The B+tree store, with 1 KiB pages, a pool of 16 of them and a checkpoint every
 * 64 KiB of log, so kills land among splits, overflow chains, evictions and checkpoints.
 *
 * <p>Pool and nio models alternate, and so do the policies {@code always}, {@code interval} and
 * {@code never}: a SIGKILL leaves the kernel's page cache, so under all three an acknowledged write
 * (written before it was answered) must survive it; only a crash of the machine tells them apart
 * (the power-loss tests).
 *
 * <p>{@code -Ddbf0.crash.cycles=N} (default 3, for CI) runs more kill cycles, e.g. 50; {@code
 * -Ddbf0.crash.seed=S} repeats a run's choices.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CrashRecoveryTest {

    static final int CONNECTIONS = 4; // two v2, two RESP
    static final int KEYS_EACH = 8; // few keys, so that reads meet writes
    static final List<String> POLICIES = List.of("always", "interval", "never");

    /** A cycle's kill comes after this many acknowledged writes at least, and at most twice it. */
    static final int WRITES_BEFORE_KILL = 800;

    /** The stores under test, with the flags that make their background work frequent. */
    enum StoreKind {
        MAP,
        LSM,
        LSM_TIERED,
        BTREE;

        List<String> args(Path dataDir, String fsync) {
            List<String> lsm =
                    List.of(
                            "--store",
                            "lsm",
                            "--data-dir",
                            dataDir.toString(),
                            "--fsync",
                            fsync,
                            "--memtable-size",
                            "64k");
            return switch (this) {
                case MAP ->
                        List.of(
                                "--data-dir",
                                dataDir.toString(),
                                "--fsync",
                                fsync,
                                "--rewrite-growth",
                                "2",
                                "--rewrite-min-size",
                                "0");
                case LSM -> lsm;
                case LSM_TIERED -> concat(lsm, List.of("--compaction", "tiered"));
                case BTREE ->
                        List.of(
                                "--store",
                                "btree",
                                "--data-dir",
                                dataDir.toString(),
                                "--fsync",
                                fsync,
                                "--page-size",
                                "1k",
                                "--buffer-pool",
                                "16k",
                                "--checkpoint-size",
                                "64k");
            };
        }

        boolean lsm() {
            return this == LSM || this == LSM_TIERED;
        }

        private static List<String> concat(List<String> a, List<String> b) {
            List<String> all = new ArrayList<>(a);
            all.addAll(b);
            return all;
        }

        /**
         * Padding bytes a value may carry: enough for the LSM store to fill its memtables, and for
         * the B+tree's 1 KiB pages to split and chain overflow pages.
         */
        int maxPadding() {
            return this == MAP ? 0 : 800;
        }
    }

    static final class KeyState {
        volatile ByteArrayWrapper acked;
        volatile boolean inFlight;
        volatile ByteArrayWrapper flying;
    }

    /** What one run counted, for its report. */
    static final class Counts {
        final AtomicLong writes = new AtomicLong();
        final AtomicLong reads = new AtomicLong();
        final Map<String, Long> writesByPolicy = new TreeMap<>();
        long flushes;
        long compactions;
        long killsAmongStrayTables;
        long checkpoints;
        long evictions;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void noAcknowledgedWriteIsLostToSigkill(StoreKind store, @TempDir Path dir) throws Exception {
        int cycles = Integer.getInteger("dbf0.crash.cycles", 3);
        long seed = Long.getLong("dbf0.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path dataDir = Files.createDirectories(dir.resolve("data"));
        Path historyFile = dir.resolve("history.jsonl");
        KeyState[][] keys = new KeyState[CONNECTIONS][KEYS_EACH];
        for (KeyState[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyState();
            }
        }
        Counts counts = new Counts();
        long started = System.nanoTime();
        HistoryRecorder.Summary recorded;
        try (HistoryRecorder history = HistoryRecorder.open(historyFile, Long.MAX_VALUE)) {
            HistoryRecorder.Log checks = history.log(); // this thread's reads after each restart
            for (int cycle = 0; cycle <= cycles; cycle++) {
                String model = cycle % 2 == 0 ? "pool" : "nio";
                String fsync = POLICIES.get(cycle % POLICIES.size());
                ServerProcess server =
                        ServerProcess.start(
                                List.of(), serverArgs(store.args(dataDir, fsync), model));
                try {
                    verify(server.address, keys, cycle, checks);
                    if (cycle == cycles) {
                        break; // the last start only checks
                    }
                    long acked =
                            runUntilKilled(
                                    store, server, dataDir, keys, cycle, random, history, counts);
                    counts.writesByPolicy.merge(fsync, acked, Long::sum);
                } finally {
                    server.kill();
                }
            }
            recorded = history.finish();
        }
        long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        CheckResult<KvModel.Input, KvModel.Output> result = check(historyFile);
        System.err.printf(
                "CrashRecoveryTest %s (seed %d): %d SIGKILLs in %d s after %,d acknowledged"
                        + " writes %s and %,d reads; %,d flushes and %,d compactions finished"
                        + " while clients ran, %d kills left a table file half made or not yet"
                        + " deleted; history of %,d operations in %d partitions: %s in %d ms%n",
                store,
                seed,
                cycles,
                elapsed,
                counts.writes.get(),
                counts.writesByPolicy,
                counts.reads.get(),
                counts.flushes,
                counts.compactions,
                counts.killsAmongStrayTables,
                recorded.operations(),
                result.partitions(),
                result.verdict(),
                result.elapsed().toMillis());
        assertThat(counts.writes.get()).isPositive();
        assertThat(recorded.truncated()).isFalse();
        assertThat(result.isLinearizable())
                .as(
                        "the history across the kills (%s) is linearizable:%n%s",
                        historyFile,
                        result.isLinearizable() ? "" : Explanation.text(new KvModel(), result, 100))
                .isTrue();
        if (store.lsm()) {
            assertThat(counts.flushes).as("flushes while the clients ran").isPositive();
            assertThat(counts.compactions).as("compactions while the clients ran").isPositive();
        }
        if (store == StoreKind.BTREE) {
            System.err.printf(
                    "CrashRecoveryTest BTREE: %,d checkpoints and %,d page evictions while the"
                            + " clients ran%n",
                    counts.checkpoints, counts.evictions);
            assertThat(counts.checkpoints).as("checkpoints while the clients ran").isPositive();
            assertThat(counts.evictions).as("evictions while the clients ran").isPositive();
        }
    }

    private static List<String> serverArgs(List<String> storeArgs, String model) {
        // Under pool a connection holds a thread while it lasts: one more than the clients, for
        // the B+tree's INFO before each kill.
        List<String> args =
                new ArrayList<>(
                        List.of("--server-model", model, "--threads", "" + (CONNECTIONS + 1)));
        args.addAll(storeArgs);
        return args;
    }

    /**
     * Starts the clients, kills the server once they have written enough, and counts; the writes
     * acknowledged in the cycle.
     */
    private static long runUntilKilled(
            StoreKind store,
            ServerProcess server,
            Path dataDir,
            KeyState[][] keys,
            int cycle,
            Random random,
            HistoryRecorder history,
            Counts counts)
            throws Exception {
        LsmCensus before = store.lsm() ? LsmCensus.of(dataDir) : null;
        AtomicLong writes = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            Driver driver =
                    new Driver(
                            server.address,
                            c,
                            1 + cycle * CONNECTIONS + c,
                            keys,
                            new Random(random.nextLong()),
                            store.maxPadding(),
                            writes,
                            counts.reads);
            clients.add(Thread.ofPlatform().daemon().start(() -> driver.run(history)));
        }
        // Kill after a random number of writes: on a slow machine as on a fast one, a kill meets
        // the background work that so many writes cause.
        long target = WRITES_BEFORE_KILL + random.nextInt(WRITES_BEFORE_KILL);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (writes.get() < target && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        if (store == StoreKind.BTREE) { // what the tree did since this start, as the kill comes
            try (var info = new dbf0.kv.server.cluster.RawResp(server.address.getPort())) {
                String text = info.text("INFO", "persistence");
                counts.checkpoints += field(text, "dbf0_btree_checkpoints");
                counts.evictions += field(text, "dbf0_btree_evictions");
            }
        }
        server.kill();
        LsmCensus after = store.lsm() ? LsmCensus.of(dataDir) : null;
        for (Thread t : clients) {
            t.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(t.isAlive()).as("a client stops once its server is gone").isFalse();
        }
        assertThat(writes.get())
                .as("cycle %d acknowledged writes before the kill", cycle)
                .isPositive();
        counts.writes.addAndGet(writes.get());
        if (after != null) {
            counts.flushes += after.flushesSince(before);
            counts.compactions += after.compactionsSince(before);
            counts.killsAmongStrayTables += after.strayTables() > 0 ? 1 : 0;
        }
        return writes.get();
    }

    private static long field(String info, String name) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(?m)^" + name + ":(\\d+)").matcher(info);
        assertThat(m.find()).as("INFO persistence has %s:%n%s", name, info).isTrue();
        return Long.parseLong(m.group(1));
    }

    /**
     * One connection: random SETs and DELETEs of its own keys and GETs of anyone's, each recorded
     * in the history, until the connection dies.
     */
    private record Driver(
            InetSocketAddress address,
            int id,
            int client,
            KeyState[][] keys,
            Random random,
            int maxPadding,
            AtomicLong writes,
            AtomicLong reads) {

        void run(HistoryRecorder history) {
            HistoryRecorder.Log log = history.log();
            KeyState[] mine = keys[id];
            try (CrashClient connection = CrashClient.connect(address, id % 2 == 1)) {
                for (int op = 0; ; op++) {
                    int dice = random.nextInt(8);
                    if (dice < 2) {
                        read(connection, log, random.nextInt(CONNECTIONS));
                        continue;
                    }
                    int k = random.nextInt(mine.length);
                    KeyState state = mine[k];
                    ByteArrayWrapper key = key(id, k);
                    boolean delete = dice == 2;
                    ByteArrayWrapper value = delete ? null : value(k, op);
                    state.flying = value;
                    state.inFlight = true;
                    boolean recorded = log.admit();
                    long invoke = System.nanoTime();
                    try {
                        Boolean found = null;
                        if (delete) {
                            found = connection.delete(key);
                        } else {
                            connection.set(key, value);
                        }
                        long complete = System.nanoTime();
                        state.acked = value; // only once the server said OK (or :n for DEL)
                        state.inFlight = false;
                        writes.incrementAndGet();
                        if (recorded) {
                            log.completed(
                                    client,
                                    delete ? Op.DELETE : Op.SET,
                                    key.getArray(),
                                    delete ? null : value.getArray(),
                                    found,
                                    invoke,
                                    complete);
                        }
                    } catch (IOException | RuntimeException e) {
                        if (recorded) {
                            log.pending(
                                    client,
                                    delete ? Op.DELETE : Op.SET,
                                    key.getArray(),
                                    delete ? null : value.getArray(),
                                    invoke,
                                    null);
                        }
                        throw e;
                    }
                }
            } catch (IOException | RuntimeException expected) {
                // the kill: the request in flight stays unknown
            }
        }

        private void read(CrashClient connection, HistoryRecorder.Log log, int owner)
                throws IOException {
            ByteArrayWrapper key = key(owner, random.nextInt(KEYS_EACH));
            boolean recorded = log.admit();
            long invoke = System.nanoTime();
            try {
                ByteArrayWrapper found = connection.get(key);
                long complete = System.nanoTime();
                reads.incrementAndGet();
                if (recorded) {
                    log.completed(
                            client,
                            Op.GET,
                            key.getArray(),
                            found == null ? null : found.getArray(),
                            found != null,
                            invoke,
                            complete);
                }
            } catch (IOException | RuntimeException e) {
                if (recorded) {
                    log.pending(client, Op.GET, key.getArray(), null, invoke, null);
                }
                throw e;
            }
        }

        private ByteArrayWrapper value(int k, int op) {
            String text = id + "/" + k + "/" + op + "/" + random.nextInt(1000) + "/";
            return text(text + "x".repeat(maxPadding == 0 ? 0 : random.nextInt(maxPadding)));
        }
    }

    /**
     * Reads every key after a restart, recording the reads: each holds its last acknowledged value,
     * or the write that was in flight; whichever it holds is the truth from now on.
     */
    private static void verify(
            InetSocketAddress address, KeyState[][] keys, int cycle, HistoryRecorder.Log log)
            throws IOException {
        try (CrashClient client = CrashClient.connect(address, false)) {
            for (int c = 0; c < keys.length; c++) {
                for (int k = 0; k < keys[c].length; k++) {
                    KeyState state = keys[c][k];
                    log.admit();
                    long invoke = System.nanoTime();
                    ByteArrayWrapper found = client.get(key(c, k));
                    log.completed(
                            0,
                            Op.GET,
                            key(c, k).getArray(),
                            found == null ? null : found.getArray(),
                            found != null,
                            invoke,
                            System.nanoTime());
                    boolean ok =
                            Objects.equals(found, state.acked)
                                    || (state.inFlight && Objects.equals(found, state.flying));
                    assertThat(ok)
                            .as(
                                    "after kill %d, key %d/%d: found %s, last acknowledged %s, in"
                                            + " flight %s",
                                    cycle,
                                    c,
                                    k,
                                    show(found),
                                    show(state.acked),
                                    state.inFlight ? show(state.flying) : "nothing")
                            .isTrue();
                    state.acked = found;
                    state.inFlight = false;
                    state.flying = null;
                }
            }
        }
    }

    private static CheckResult<KvModel.Input, KvModel.Output> check(Path historyFile)
            throws Exception {
        History<String, KvModel.Input, KvModel.Output> history;
        try (BufferedReader in = Files.newBufferedReader(historyFile, StandardCharsets.UTF_8)) {
            history = Dbf0HistoryFormat.parse(in, historyFile.toString());
        }
        return LinearizabilityChecker.check(history, Duration.ofMinutes(2));
    }

    static ByteArrayWrapper key(int c, int k) {
        return text("c" + c + "k" + k);
    }

    static ByteArrayWrapper text(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    static String show(ByteArrayWrapper v) {
        if (v == null) {
            return "absent";
        }
        String s = new String(v.getArray(), StandardCharsets.UTF_8);
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
