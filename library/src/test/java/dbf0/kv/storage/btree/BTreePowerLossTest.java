package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.SimulatedDirectory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts at every kind of step, in memory ({@link SimulatedDirectory}): each cycle opens the
 * store on what the last cut left (the double-write repair, the replay, the checkpoint at open),
 * checks every key, then lets two writers put and delete under {@code always}, with 1 KiB pages, a
 * pool of 16 and checkpoints every few KiB of log, so that splits, overflow chains, checkpoints and
 * log switches all run, until the power goes at a chosen write, force, directory sync, rename or
 * delete, whichever thread makes it. Only forced bytes and synced names survive; an unforced page
 * write in place may or may not, and the last write is torn. A key must then hold its last
 * acknowledged write, or the one in flight when the power went: zero acknowledged writes lost.
 *
 * <p>{@code -Ddbf0.btree.powerloss.cycles=N} sets the fast test's cycles (default 300). The
 * thousands of cuts carry the tag {@code proof}: {@code scripts/proofs.sh} runs them (CI too),
 * {@code ./test.sh} leaves them out.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class BTreePowerLossTest {

    static final int WRITERS = 2;
    static final int KEYS_PER_WRITER = 40;

    /** A key as its one writer knows it. */
    static final class KeyState {
        volatile ByteArrayWrapper acked;
        volatile boolean inFlight;
        volatile ByteArrayWrapper flying;
    }

    static BTreeOptions options() {
        return BTreeOptions.defaults(Path.of("sim"))
                .withPageSize(1024)
                .withBufferPoolBytes(16 * 1024)
                .withCheckpointLogBytes(6 * 1024)
                .withFsync(FsyncPolicy.ALWAYS);
    }

    @Test
    void noAcknowledgedWriteIsLostAcrossPowerCuts() throws Exception {
        run(Integer.getInteger("dbf0.btree.powerloss.cycles", 300), 21);
    }

    @Test
    @Tag("slow") // about 25 s
    @Tag("proof") // scripts/proofs.sh and CI run it; ./test.sh runs the 300 cuts above
    void thousandsOfCuts() throws Exception {
        run(4000, 22);
    }

    static void run(int cycles, long seed) throws Exception {
        Random random = new Random(seed);
        SimulatedDirectory disk = new SimulatedDirectory();
        KeyState[][] keys = new KeyState[WRITERS][KEYS_PER_WRITER];
        for (KeyState[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyState();
            }
        }
        Map<String, Integer> where = new TreeMap<>();
        long checked = 0;
        int repairs = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            // half the cycles cut only the checkpoint thread's writes and forces
            if (cycle % 2 == 0) {
                disk.cutAt(1 + random.nextInt(40), new Random(random.nextLong()), "btree-");
            } else {
                disk.cutAt(1 + random.nextInt(900), new Random(random.nextLong()));
            }
            BTreeStore store;
            try {
                store = BTreeStore.open(options(), disk.mount());
            } catch (Exception e) {
                assertThat(disk.cutWhere()).as("open failed without a cut: %s", e).isNotNull();
                tally(where, "open " + disk.cutWhere());
                continue;
            }
            if (store.recovery().repairedPages() > 0) {
                repairs++;
            }
            try {
                checked += check(store, keys, cycle);
                write(store, keys, random.nextLong());
            } catch (StorageFailureException e) {
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
        BTreeStore last = BTreeStore.open(options(), disk.mount());
        checked += check(last, keys, cycles);
        last.close();
        System.out.printf(
                "btree power loss: %d cycles, %d keys checked, %d opens repaired a torn"
                        + " checkpoint; cuts by thread and step: %s%n",
                cycles, checked, repairs, where);
        assertThat(where.keySet()).anyMatch(w -> w.startsWith("btree-checkpoint WRITE"));
        assertThat(where.keySet()).anyMatch(w -> w.startsWith("btree-checkpoint FORCE"));
        assertThat(repairs)
                .as("opens that wrote pages again from the double-write file")
                .isPositive();
    }

    private static void tally(Map<String, Integer> where, String cut) {
        where.merge(cut.replaceAll("-\\d+", ""), 1, Integer::sum);
    }

    /** Checks every key; a key whose write was in flight takes what the store has as acked. */
    private static long check(BTreeStore store, KeyState[][] keys, int cycle) {
        long n = 0;
        for (int w = 0; w < WRITERS; w++) {
            for (int k = 0; k < KEYS_PER_WRITER; k++) {
                KeyState state = keys[w][k];
                ByteArrayWrapper found = store.get(key(w, k));
                if (state.inFlight && Objects.equals(found, state.flying)) {
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
    private static void write(BTreeStore store, KeyState[][] keys, long seed) throws Exception {
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
                                        byte[] bytes = new byte[10 + random.nextInt(700)];
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
    }
}
