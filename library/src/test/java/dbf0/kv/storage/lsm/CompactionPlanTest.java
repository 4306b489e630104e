package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The leveled plan picks by score, as LevelDB and RocksDB do: level 0 at its trigger must not
 * starve the levels below. The model run replays sustained writes against the plan alone: tables
 * known by their metadata, merges sized by the key range they cover.
 */
class CompactionPlanTest {

    /** Keys 0..KEYS-1, spread evenly: a table's bytes follow its key range. */
    private static final int KEYS = 1_000_000;

    /** Level 1 of 4 MiB, 1 MiB tables, x10: the defaults scaled down. */
    private static final LsmTuning TUNING =
            LsmTuning.DEFAULTS.withL0Triggers(4, 12, 20).withSizes(1 << 20, 4 << 20);

    private long nextNumber = 1;

    private static ByteArrayWrapper key(long i) {
        return new ByteArrayWrapper(
                String.format("k%07d", Math.min(i, KEYS - 1)).getBytes(StandardCharsets.UTF_8));
    }

    private static long index(ByteArrayWrapper key) {
        return Long.parseLong(new String(key.getArray(), StandardCharsets.UTF_8).substring(1));
    }

    private Table table(long from, long to, long bytes) {
        return Table.ofMeta(new TableMeta(nextNumber++, bytes, key(from), key(to), 1, 1, 1));
    }

    /** {@code n} tables of {@code bytes} each splitting the key space evenly. */
    private List<Table> run(int n, long bytes) {
        List<Table> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(table((long) KEYS * i / n, (long) KEYS * (i + 1) / n - 1, bytes));
        }
        return out;
    }

    private static Version version(List<Table> l0, List<Table> l1) {
        List<List<Table>> levels = new ArrayList<>();
        levels.add(l0);
        levels.add(l1);
        for (int i = 2; i < Version.LEVELS; i++) {
            levels.add(List.of());
        }
        List<Table> l0Ordered = new ArrayList<>(l0);
        Version.order(0, l0Ordered);
        levels.set(0, l0Ordered);
        return new Version(levels);
    }

    @Test
    void anOversizedLevelOneGoesBeforeLevelZeroAtItsTrigger() {
        // level 0 at its trigger scores 1; level 1 at 12 times its target scores 12
        Version v = version(run(1, 1 << 20), run(48, 1 << 20));
        List<Table> l0 = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            l0.add(table(0, KEYS - 1, 1 << 20));
        }
        v = version(l0, v.level(1));
        assertThat(CompactionPlan.score(v, TUNING, 0)).isEqualTo(1.0);
        assertThat(CompactionPlan.score(v, TUNING, 1)).isEqualTo(12.0);

        CompactionPlan plan =
                CompactionPlan.pick(
                        v, CompactionStyle.LEVELED, TUNING, new ByteArrayWrapper[Version.LEVELS]);

        assertThat(plan.outputLevel()).isEqualTo(2);
        assertThat(plan.inputs()).hasSize(1); // one table of level 1, nothing below it yet
        assertThat(v.level(1)).contains(plan.inputs().get(0));
    }

    @Test
    void levelZeroGoesFirstWhenItsScoreIsHigherAndOnlyWithTheLevelOneTablesItOverlaps() {
        List<Table> l1 = run(8, 1 << 20); // 8 MiB: score 2
        List<Table> l0 = new ArrayList<>();
        for (int i = 0; i < 12; i++) { // score 3
            l0.add(table(0, KEYS / 8 - 1, 1 << 20)); // the first eighth of the keys only
        }
        Version v = version(l0, l1);

        CompactionPlan plan =
                CompactionPlan.pick(
                        v, CompactionStyle.LEVELED, TUNING, new ByteArrayWrapper[Version.LEVELS]);

        assertThat(plan.outputLevel()).isEqualTo(1);
        assertThat(plan.inputs()).containsAll(l0).contains(l1.get(0)).hasSize(13);
    }

    @Test
    void nothingIsDueBelowEveryTarget() {
        Version v = version(run(3, 1 << 20), run(3, 1 << 20));
        assertThat(CompactionPlan.neediest(v, TUNING)).isEqualTo(-1);
        assertThat(
                        CompactionPlan.pick(
                                v,
                                CompactionStyle.LEVELED,
                                TUNING,
                                new ByteArrayWrapper[Version.LEVELS]))
                .isNull();
    }

    /**
     * Sustained writes: each step flushes a memtable (unless level 0 is at its stop trigger) and
     * gives the compactor a budget of bytes to read and write, less than it would need to keep
     * every level at its target. Whatever falls behind, no level may grow without bound: each stays
     * within a few times its target, as the write stall at level 0's stop trigger holds the writers
     * back. Under the old policy (level 0 first whenever it is at its trigger) level 1 took in all
     * 64 MiB of the data, 16 times its target.
     */
    @Test
    void underSustainedWritesEveryLevelStaysNearItsTarget() {
        long live = 64L << 20; // the data: 64 MiB of distinct keys
        long memtable = 1 << 20;
        long budgetPerStep = 12L << 20;
        Version v = Version.empty();
        ByteArrayWrapper[] cursor = new ByteArrayWrapper[Version.LEVELS];
        double worst = 0;
        long budget = 0;
        for (int step = 0; step < 3000; step++) {
            if (v.level(0).size() < TUNING.l0StopTrigger()) {
                v = v.with(List.of(), 0, List.of(table(0, KEYS - 1, memtable)));
            }
            budget += budgetPerStep;
            while (budget > 0) {
                CompactionPlan plan =
                        CompactionPlan.pick(v, CompactionStyle.LEVELED, TUNING, cursor);
                if (plan == null) {
                    budget = 0;
                    break;
                }
                List<Table> out = merge(plan, live);
                for (Table t : plan.inputs()) {
                    budget -= t.meta().bytes();
                }
                for (Table t : out) {
                    budget -= t.meta().bytes();
                }
                v = v.with(plan.inputs(), plan.outputLevel(), out);
            }
            for (int level = 1; level < Version.LEVELS - 1; level++) {
                worst = Math.max(worst, CompactionPlan.score(v, TUNING, level));
            }
        }
        assertThat(v.levelBytes(2)).isPositive(); // the data reached level 2
        // level 0 first at its trigger: level 1 takes in all the data (score 16) and stays there
        assertThat(worst).isLessThan(8.0);
    }

    /**
     * The plan's merge, modelled: the output covers the inputs' key range with at most the live
     * data's share of that range (overwritten keys merge away), split into tables of the table
     * size.
     */
    private List<Table> merge(CompactionPlan plan, long live) {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        long sum = 0;
        for (Table t : plan.inputs()) {
            lo = Math.min(lo, index(t.meta().smallest()));
            hi = Math.max(hi, index(t.meta().largest()));
            sum += t.meta().bytes();
        }
        long bytes = Math.min(sum, live * (hi - lo + 1) / KEYS);
        int n = (int) Math.max(1, (bytes + TUNING.tableBytes() - 1) / TUNING.tableBytes());
        List<Table> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long from = lo + (hi - lo + 1) * i / n;
            long to = lo + (hi - lo + 1) * (i + 1) / n - 1;
            out.add(table(from, to, bytes / n));
        }
        return out;
    }
}
