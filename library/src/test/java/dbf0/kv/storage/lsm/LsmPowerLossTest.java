package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.SimulatedDirectory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts at every kind of step, in memory ({@link SimulatedDirectory}): each cycle opens the
 * store on what the last cut left (replaying logs, writing a table, editing the manifest), checks
 * every key, then lets two writers put and delete under {@code always} with a tiny memtable, so
 * that flushes, compactions and manifest edits run, until the power goes at a chosen write, force,
 * directory sync, rename or delete, whichever thread makes it. Only forced bytes and synced names
 * survive, and the last write is torn. A key must then hold its last acknowledged write, or the one
 * in flight when the power went: zero acknowledged writes lost.
 *
 * <p>{@code -Ddbf0.lsm.powerloss.cycles=N} sets the fast test's cycles (default 300). The thousands
 * of cuts carry the tag {@code proof}: {@code scripts/proofs.sh} runs them (CI too), {@code
 * ./test.sh} leaves them out.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LsmPowerLossTest {

    static final int WRITERS = 2;
    static final int KEYS_PER_WRITER = 40;

    /** A key as its one writer knows it. */
    static final class KeyState {
        volatile ByteArrayWrapper acked;
        volatile boolean inFlight;
        volatile ByteArrayWrapper flying;
    }

    @Test
    void noAcknowledgedWriteIsLostAcrossPowerCuts() throws Exception {
        run(Integer.getInteger("dbf0.lsm.powerloss.cycles", 300), 11, CompactionStyle.LEVELED);
    }

    @Test
    @Tag("slow") // about 45 s; the tiered store's cuts are LsmTieredPowerLossTest's, on another
    // fork
    @Tag("proof") // scripts/proofs.sh and CI run it; ./test.sh runs the 300 cuts above
    void thousandsOfCutsLeveled() throws Exception {
        run(3000, 12, CompactionStyle.LEVELED);
    }

    static LsmOptions options(CompactionStyle style) {
        return LsmOptions.defaults(Path.of("sim"))
                .withMemtableBytes(LsmOptions.MIN_MEMTABLE_BYTES)
                .withFsync(FsyncPolicy.ALWAYS)
                .withCompaction(style)
                .withTuning(
                        LsmTuning.DEFAULTS.withL0Triggers(2, 6, 10).withSizes(16 << 10, 48 << 10));
    }

    static void run(int cycles, long seed, CompactionStyle style) throws Exception {
        Random random = new Random(seed);
        Manifest.rewriteBytes = 2048; // a manifest rewrite every few edits: cut those too
        SimulatedDirectory disk = new SimulatedDirectory();
        KeyState[][] keys = new KeyState[WRITERS][KEYS_PER_WRITER];
        for (KeyState[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyState();
            }
        }
        Map<String, Integer> where = new TreeMap<>();
        long checked = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            // the cut may come during the open itself: its replay, flush and manifest edit
            // half the cycles cut only the background thread's flushes, compactions and edits
            if (cycle % 2 == 0) {
                disk.cutAt(1 + random.nextInt(60), new Random(random.nextLong()), "lsm-");
            } else {
                disk.cutAt(1 + random.nextInt(900), new Random(random.nextLong()));
            }
            LsmStore store;
            try {
                store = LsmStore.open(options(style), disk.mount());
            } catch (Exception e) {
                assertThat(disk.cutWhere()).as("open failed without a cut: %s", e).isNotNull();
                tally(where, "open " + disk.cutWhere());
                continue;
            }
            try {
                checked += check(store, keys, cycle);
                write(store, keys, random.nextLong());
            } catch (dbf0.kv.storage.StorageFailureException e) {
                // the background thread met the cut while we read: the power is gone
                assertThat(disk.cutWhere()).as("a read failed without a cut: %s", e).isNotNull();
            }
            store.close();
            String cut = disk.cutWhere();
            if (cut == null) {
                disk.powerCut(random); // the workload ended first: cut now, after a clean close
                cut = "after close";
            }
            tally(where, cut);
        }
        LsmStore last = LsmStore.open(options(style), disk.mount());
        checked += check(last, keys, cycles);
        last.close();
        Manifest.rewriteBytes = Manifest.REWRITE_BYTES;
        System.out.printf(
                "lsm power loss (%s): %d cycles, %d keys checked; cuts by thread and step: %s%n",
                style, cycles, checked, where);
        assertThat(where.keySet()).anyMatch(w -> w.startsWith("lsm-compaction"));
        assertThat(where.keySet()).anyMatch(w -> w.startsWith("lsm-flush"));
    }

    private static void tally(Map<String, Integer> where, String cut) {
        where.merge(cut.replaceAll("-\\d+", ""), 1, Integer::sum);
    }

    /** Checks every key; a key whose write was in flight takes what the store has as acked. */
    private static long check(LsmStore store, KeyState[][] keys, int cycle) {
        long n = 0;
        for (int w = 0; w < WRITERS; w++) {
            for (int k = 0; k < KEYS_PER_WRITER; k++) {
                KeyState state = keys[w][k];
                ByteArrayWrapper found = store.get(key(w, k));
                if (state.inFlight && java.util.Objects.equals(found, state.flying)) {
                    state.acked = found;
                }
                assertThat(found)
                        .as("cycle %d, writer %d, key %d", cycle, w, k)
                        .isEqualTo(state.acked);
                state.inFlight = false;
                n++;
            }
        }
        return n;
    }

    static ByteArrayWrapper key(int writer, int k) {
        return new ByteArrayWrapper(String.format("w%d-key%03d", writer, k).getBytes());
    }

    /** Two writers until the power goes (a write fails) or each has done its share. */
    private static void write(LsmStore store, KeyState[][] keys, long seed) throws Exception {
        Map<Integer, Throwable> failures = new ConcurrentHashMap<>();
        Thread[] threads = new Thread[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Random random = new Random(seed + w);
            threads[w] =
                    new Thread(
                            () -> {
                                for (int i = 0; i < 400; i++) {
                                    int k = random.nextInt(KEYS_PER_WRITER);
                                    KeyState state = keys[writer][k];
                                    ByteArrayWrapper value = null;
                                    if (random.nextInt(5) > 0) {
                                        byte[] bytes = new byte[100 + random.nextInt(900)];
                                        random.nextBytes(bytes);
                                        value = new ByteArrayWrapper(bytes);
                                    }
                                    state.flying = value;
                                    state.inFlight = true;
                                    try {
                                        if (value == null) {
                                            store.delete(key(writer, k));
                                        } else {
                                            store.put(key(writer, k), value);
                                        }
                                    } catch (RuntimeException e) {
                                        return; // the power went: this write stays in flight
                                    }
                                    state.acked = value;
                                    state.inFlight = false;
                                }
                            },
                            "writer-" + w);
            threads[w].start();
        }
        for (Thread t : threads) {
            t.join(60_000);
            assertThat(t.isAlive()).as("a writer hangs").isFalse();
        }
        assertThat(failures).isEmpty();
    }
}
