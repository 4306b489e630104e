package dbf0.kv.check;

import static dbf0.kv.check.Histories.register;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.check.CheckResult.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tiny hand-made histories for the textbook cases, each with the verdict it must get. */
class ClassicCasesTest {

    private static Verdict verdict(Histories.Reg h) {
        return LinearizabilityChecker.check(h.history(), Duration.ofSeconds(10)).verdict();
    }

    @Test
    void emptyAndPendingOnlyHistoriesAreLinearizable() {
        assertThat(verdict(register())).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(verdict(register().pendingWrite(1, "1", 0).pendingCas(2, "1", "2", 3)))
                .isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void staleReadAfterACompletedWriteIsAViolation() {
        assertThat(verdict(register().write(1, "1", 0, 1).read(2, null, 2, 3)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(verdict(register().write(1, "1", 0, 1).read(2, "1", 2, 3)))
                .isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void aReadOverlappingAWriteMaySeeEitherValue() {
        assertThat(verdict(register().write(1, "1", 0, 10).read(2, null, 2, 3)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(verdict(register().write(1, "1", 0, 10).read(2, "1", 2, 3)))
                .isEqualTo(Verdict.LINEARIZABLE);
        // ...but not the old value after having seen the new one.
        assertThat(verdict(register().write(1, "1", 0, 10).read(2, "1", 2, 3).read(2, null, 4, 5)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(verdict(register().read(2, "7", 0, 1))).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void concurrentWritesMayTakeEffectInEitherOrderButOnlyOne() {
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 10)
                                        .write(2, "2", 0, 10)
                                        .read(3, "1", 11, 12)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 10)
                                        .write(2, "2", 0, 10)
                                        .read(3, "2", 11, 12)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 10)
                                        .write(2, "2", 0, 10)
                                        .read(3, "1", 11, 12)
                                        .read(3, "2", 13, 14)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        // During the writes both orders can be seen, one after the other.
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 10)
                                        .write(2, "2", 0, 10)
                                        .read(3, "1", 1, 2)
                                        .read(3, "2", 3, 4)))
                .isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void aPendingWriteMayBeObservedOrNeverTakeEffect() {
        assertThat(
                        verdict(
                                register()
                                        .pendingWrite(1, "1", 0)
                                        .read(2, null, 1, 2)
                                        .read(2, "1", 3, 4)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(verdict(register().pendingWrite(1, "1", 0).read(2, null, 100, 101)))
                .isEqualTo(Verdict.LINEARIZABLE);
        // Once observed it has happened: it cannot be undone...
        assertThat(
                        verdict(
                                register()
                                        .pendingWrite(1, "1", 0)
                                        .read(2, "1", 3, 4)
                                        .read(2, null, 5, 6)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        // ...and it cannot take effect before it was invoked.
        assertThat(verdict(register().read(2, "1", 0, 1).pendingWrite(1, "1", 5)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void compareAndSetSemantics() {
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .cas(2, "1", "2", true, 2, 3)
                                        .read(3, "2", 4, 5)))
                .isEqualTo(Verdict.LINEARIZABLE);
        // It must swap when the value matches, and must not when it does not.
        assertThat(verdict(register().write(1, "1", 0, 1).cas(2, "1", "2", false, 2, 3)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(verdict(register().write(1, "1", 0, 1).cas(2, "3", "4", true, 2, 3)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(verdict(register().cas(2, "3", "4", true, 0, 1)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        // A CAS that did not swap is still a completed operation: it says the value was not "1"
        // then, so the concurrent write of 3 must have come first, and 1 can no longer be read
        // afterwards.
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .cas(2, "3", "4", false, 2, 3)
                                        .read(3, "1", 4, 5)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .write(2, "3", 2, 10)
                                        .cas(3, "1", "2", false, 3, 4)
                                        .read(3, "3", 11, 12)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .write(2, "3", 2, 10)
                                        .cas(3, "1", "2", false, 3, 4)
                                        .read(3, "1", 11, 12)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void aPendingCasMaySwapOrNot() {
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .pendingCas(2, "1", "2", 2)
                                        .read(3, "2", 3, 4)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .pendingCas(2, "1", "2", 2)
                                        .read(3, "1", 3, 4)
                                        .read(3, "2", 5, 6)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        verdict(
                                register()
                                        .write(1, "1", 0, 1)
                                        .pendingCas(2, "1", "2", 2)
                                        .read(3, "2", 3, 4)
                                        .read(3, "1", 5, 6)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        // It can only swap from the expected value.
        assertThat(
                        verdict(
                                register()
                                        .write(1, "5", 0, 1)
                                        .pendingCas(2, "1", "2", 2)
                                        .read(3, "2", 3, 4)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void touchingIntervalsCountAsConcurrent() {
        // The write returns at 5 and the read is invoked at 5: intervals are closed, so the read
        // may still come first (see LinearizabilityChecker's class comment).
        assertThat(verdict(register().write(1, "1", 0, 5).read(2, null, 5, 6)))
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(verdict(register().write(1, "1", 0, 5).read(2, null, 6, 7)))
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    private static Operation<KvModel.Input, KvModel.Output> kv(
            KvModel.Input in, KvModel.Output out, long a, long b) {
        return Operation.ok(1, in, out, a, b);
    }

    private static CheckResult<KvModel.Input, KvModel.Output> checkKv(
            List<Operation<KvModel.Input, KvModel.Output>> ops) {
        return LinearizabilityChecker.check(
                new History<>(Histories.KV, ops), Duration.ofSeconds(10));
    }

    @Test
    void keysAreIndependentAndTheFirstFailingKeyIsReported() {
        var ops =
                new ArrayList<>(
                        List.of(
                                kv(KvModel.Input.put("a", "1"), KvModel.Output.NONE, 0, 1),
                                kv(KvModel.Input.get("b"), KvModel.Output.missing(), 2, 3),
                                kv(KvModel.Input.get("a"), KvModel.Output.found("1"), 2, 3)));
        assertThat(checkKv(ops).verdict()).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(checkKv(ops).partitions()).isEqualTo(2);
        ops.add(kv(KvModel.Input.get("b"), KvModel.Output.found("1"), 4, 5));
        ops.add(kv(KvModel.Input.get("a"), KvModel.Output.missing(), 4, 5));
        var r = checkKv(ops);
        assertThat(r.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(r.failingKey()).isEqualTo("a");
        assertThat(r.subHistory()).hasSize(3).allMatch(op -> op.input().key().equals("a"));
        assertThat(
                        LinearizabilityChecker.check(
                                        new History<>(Histories.KV, ops), Duration.ofSeconds(10), 4)
                                .failingKey())
                .isEqualTo("a");
    }

    @Test
    void deleteAndAppendSemantics() {
        assertThat(
                        checkKv(
                                        List.of(
                                                kv(
                                                        KvModel.Input.put("a", "1"),
                                                        KvModel.Output.NONE,
                                                        0,
                                                        1),
                                                kv(
                                                        KvModel.Input.delete("a"),
                                                        new KvModel.Output(true, null),
                                                        2,
                                                        3),
                                                kv(
                                                        KvModel.Input.get("a"),
                                                        KvModel.Output.missing(),
                                                        4,
                                                        5)))
                                .verdict())
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        checkKv(
                                        List.of(
                                                kv(
                                                        KvModel.Input.put("a", "1"),
                                                        KvModel.Output.NONE,
                                                        0,
                                                        1),
                                                kv(
                                                        KvModel.Input.delete("a"),
                                                        new KvModel.Output(false, null),
                                                        2,
                                                        3)))
                                .verdict())
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
        var appends =
                List.of(
                        kv(KvModel.Input.append("a", "x"), KvModel.Output.NONE, 0, 10),
                        kv(KvModel.Input.append("a", "y"), KvModel.Output.NONE, 0, 10));
        for (String seen : List.of("xy", "yx")) {
            var ops = new ArrayList<>(appends);
            ops.add(kv(KvModel.Input.get("a"), KvModel.Output.found(seen), 11, 12));
            assertThat(checkKv(ops).verdict()).as(seen).isEqualTo(Verdict.LINEARIZABLE);
        }
        var ops = new ArrayList<>(appends);
        ops.add(kv(KvModel.Input.get("a"), KvModel.Output.found("x"), 11, 12));
        assertThat(checkKv(ops).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        // A missing key and "" are the same to a kv-format get, not to a dbf0 one.
        assertThat(
                        checkKv(
                                        List.of(
                                                kv(
                                                        KvModel.Input.get("a"),
                                                        KvModel.Output.emptyMeansMissing(""),
                                                        0,
                                                        1)))
                                .verdict())
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(
                        checkKv(List.of(kv(KvModel.Input.get("a"), KvModel.Output.found(""), 0, 1)))
                                .verdict())
                .isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void aHardSearchRunsOutOfTimeAsUnknown() {
        // 40 concurrent writes then a read of a value never written: every subset of the writes is
        // a distinct memo entry, far more than fit in 50 ms.
        Histories.Reg h = register();
        for (int i = 0; i < 40; i++) {
            h.write(i, Integer.toString(i), 0, 100);
        }
        h.read(99, "never", 101, 102);
        var r = LinearizabilityChecker.check(h.history(), Duration.ofMillis(50));
        assertThat(r.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(r.elapsed()).isLessThan(Duration.ofSeconds(5));
    }
}
