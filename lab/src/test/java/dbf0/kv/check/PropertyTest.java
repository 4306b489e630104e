package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.check.CheckResult.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Properties that must hold for any history, not just the published ones: what a sequential
 * execution produced is linearizable however its intervals overlap; corrupting one read to a value
 * never written makes it not; and on small histories the checker agrees with brute force.
 */
class PropertyTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void sequentialExecutionsWithOverlappingIntervalsAreLinearizable() {
        Random rnd = new Random(1);
        for (int i = 0; i < 300; i++) {
            int n = 1 + rnd.nextInt(60);
            int spread = rnd.nextInt(60); // up to 6 neighbours either side overlap
            var reg = RandomHistories.linearizableRegister(rnd, n, spread);
            assertThat(
                            LinearizabilityChecker.check(
                                            new History<>(Histories.REGISTER, reg), LIMIT)
                                    .verdict())
                    .as("register history %d: %s", i, reg)
                    .isEqualTo(Verdict.LINEARIZABLE);
            var kv = RandomHistories.linearizableKv(rnd, n * 4, 1 + rnd.nextInt(5), spread);
            assertThat(
                            LinearizabilityChecker.check(new History<>(Histories.KV, kv), LIMIT)
                                    .verdict())
                    .as("kv history %d: %s", i, kv)
                    .isEqualTo(Verdict.LINEARIZABLE);
        }
    }

    @Test
    void oneReadOfAValueNeverWrittenIsAViolation() {
        Random rnd = new Random(2);
        int corrupted = 0;
        for (int i = 0; i < 300; i++) {
            var reg =
                    new ArrayList<>(
                            RandomHistories.linearizableRegister(
                                    rnd, 1 + rnd.nextInt(45), rnd.nextInt(60)));
            List<Integer> reads = new ArrayList<>();
            for (int j = 0; j < reg.size(); j++) {
                if (reg.get(j).input().kind() == RegisterModel.Kind.READ
                        && !reg.get(j).isPending()) {
                    reads.add(j);
                }
            }
            if (reads.isEmpty()) {
                continue;
            }
            int j = reads.get(rnd.nextInt(reads.size()));
            var op = reg.get(j);
            reg.set(
                    j,
                    Operation.ok(
                            op.client(),
                            op.input(),
                            RegisterModel.Output.read("never-written"),
                            op.invokeTime(),
                            op.returnTime()));
            var r = LinearizabilityChecker.check(new History<>(Histories.REGISTER, reg), LIMIT);
            assertThat(r.verdict())
                    .as("register history %d: %s", i, reg)
                    .isEqualTo(Verdict.NOT_LINEARIZABLE);
            corrupted++;
        }
        assertThat(corrupted).isGreaterThan(200);
    }

    // Smaller than the linearizable ones: pending appends make the search exponential in how many
    // are open at once (each may land between any two later appends, giving distinct values), and a
    // violation must explore every placement before the corrupted get (docs/4-correctness.md,
    // "Pending operations").
    @Test
    void oneGetOfAValueNeverWrittenIsAViolationOnItsKey() {
        Random rnd = new Random(3);
        int corrupted = 0;
        for (int i = 0; i < 300; i++) {
            var kv =
                    new ArrayList<>(
                            RandomHistories.linearizableKv(
                                    rnd,
                                    10 + rnd.nextInt(80),
                                    1 + rnd.nextInt(8),
                                    rnd.nextInt(60)));
            List<Integer> gets = new ArrayList<>();
            for (int j = 0; j < kv.size(); j++) {
                if (kv.get(j).input().kind() == KvModel.Kind.GET && !kv.get(j).isPending()) {
                    gets.add(j);
                }
            }
            if (gets.isEmpty()) {
                continue;
            }
            int j = gets.get(rnd.nextInt(gets.size()));
            var op = kv.get(j);
            kv.set(
                    j,
                    Operation.ok(
                            op.client(),
                            op.input(),
                            KvModel.Output.found("never-written"),
                            op.invokeTime(),
                            op.returnTime()));
            var r = LinearizabilityChecker.check(new History<>(Histories.KV, kv), LIMIT);
            assertThat(r.verdict()).as("kv history %d", i).isEqualTo(Verdict.NOT_LINEARIZABLE);
            assertThat(r.failingKey()).isEqualTo(op.input().key());
            assertThat(r.subHistory()).contains(kv.get(j));
            corrupted++;
        }
        assertThat(corrupted).isGreaterThan(200);
    }

    @Test
    void agreesWithBruteForceOnSmallRegisterHistories() {
        Random rnd = new Random(4);
        int[] verdicts = new int[2];
        for (int i = 0; i < 5000; i++) {
            var ops = RandomHistories.arbitraryRegister(rnd, 1 + rnd.nextInt(7));
            boolean expected = BruteForceChecker.linearizable(Histories.REGISTER, ops);
            var r = LinearizabilityChecker.check(new History<>(Histories.REGISTER, ops), LIMIT);
            assertThat(r.isLinearizable()).as("history %d: %s", i, ops).isEqualTo(expected);
            verdicts[expected ? 1 : 0]++;
        }
        // Both verdicts must be common, or the comparison proves little.
        assertThat(verdicts[0]).isGreaterThan(1000);
        assertThat(verdicts[1]).isGreaterThan(1000);
    }

    @Test
    void agreesWithBruteForceOnSmallKvHistories() {
        Random rnd = new Random(5);
        int[] verdicts = new int[2];
        for (int i = 0; i < 5000; i++) {
            var ops = RandomHistories.arbitraryKv(rnd, 1 + rnd.nextInt(7));
            boolean expected = BruteForceChecker.linearizable(Histories.KV, ops);
            var r = LinearizabilityChecker.check(new History<>(Histories.KV, ops), LIMIT);
            assertThat(r.isLinearizable()).as("history %d: %s", i, ops).isEqualTo(expected);
            verdicts[expected ? 1 : 0]++;
        }
        assertThat(verdicts[0]).isGreaterThan(1000);
        assertThat(verdicts[1]).isGreaterThan(1000);
    }

    // Many pending operations exercise the search's pruning of configurations dominated by failed
    // ones (LinearizabilityChecker.Search#dominated); brute force prunes nothing.
    @Test
    void agreesWithBruteForceWhenHalfTheOperationsArePending() {
        Random rnd = new Random(7);
        int[] verdicts = new int[2];
        for (int i = 0; i < 3000; i++) {
            int n = 2 + rnd.nextInt(7);
            boolean register = i % 2 == 0;
            boolean expected;
            boolean actual;
            if (register) {
                var ops = RandomHistories.arbitraryRegister(rnd, n, 2);
                expected = BruteForceChecker.linearizable(Histories.REGISTER, ops);
                actual =
                        LinearizabilityChecker.check(new History<>(Histories.REGISTER, ops), LIMIT)
                                .isLinearizable();
                assertThat(actual).as("history %d: %s", i, ops).isEqualTo(expected);
            } else {
                var ops = RandomHistories.arbitraryKv(rnd, n, 2);
                expected = BruteForceChecker.linearizable(Histories.KV, ops);
                actual =
                        LinearizabilityChecker.check(new History<>(Histories.KV, ops), LIMIT)
                                .isLinearizable();
                assertThat(actual).as("history %d: %s", i, ops).isEqualTo(expected);
            }
            verdicts[expected ? 1 : 0]++;
        }
        assertThat(verdicts[0]).isGreaterThan(500);
        assertThat(verdicts[1]).isGreaterThan(500);
    }

    @Test
    void parallelAndSequentialCheckingAgree() {
        Random rnd = new Random(6);
        for (int i = 0; i < 50; i++) {
            var kv = new ArrayList<>(RandomHistories.linearizableKv(rnd, 500, 20, 40));
            if (i % 2 == 0) {
                int j = rnd.nextInt(kv.size());
                var op = kv.get(j);
                kv.set(
                        j,
                        Operation.ok(
                                op.client(),
                                KvModel.Input.get(op.input().key()),
                                KvModel.Output.found("bad"),
                                op.invokeTime(),
                                op.isPending() ? op.invokeTime() + 1 : op.returnTime()));
            }
            var h = new History<>(Histories.KV, kv);
            var one = LinearizabilityChecker.check(h, LIMIT, 1);
            var four = LinearizabilityChecker.check(h, LIMIT, 4);
            assertThat(four.verdict())
                    .isEqualTo(one.verdict())
                    .isEqualTo(i % 2 == 0 ? Verdict.NOT_LINEARIZABLE : Verdict.LINEARIZABLE);
            assertThat(four.failingKey()).isEqualTo(one.failingKey());
        }
    }
}
