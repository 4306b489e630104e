package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Long generated histories with known verdicts ({@link KvEdnGenerator}): linearizable as recorded
 * from a correct map, and not once a single get among 24,000 operations reads a stale value.
 */
class LongHistoriesTest {

    private static final int OPS = 24_000;

    private static CheckResult<?, ?> check(List<String> lines) throws Exception {
        var h =
                KvEdnFormat.parse(
                        new BufferedReader(new StringReader(String.join("\n", lines))), "g");
        assertThat(h.size()).isEqualTo(OPS);
        return LinearizabilityChecker.check(h, Duration.ofMinutes(2));
    }

    @Test
    void aHistoryFromACorrectMapIsLinearizable() throws Exception {
        var g = KvEdnGenerator.generate(OPS, 100, 10, new Random(1));
        var r = check(g.lines());
        assertThat(r.verdict()).isEqualTo(CheckResult.Verdict.LINEARIZABLE);
        assertThat(r.partitions()).isEqualTo(100);
    }

    @Test
    void oneStaleReadMakesItNotLinearizableOnThatKey() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            var g = KvEdnGenerator.generate(OPS, 100, 10, new Random(seed));
            assertThat(g.misreadable()).isNotEmpty();
            KvEdnGenerator.Stale stale = g.staleRead();
            var r = check(stale.lines());
            assertThat(r.verdict()).isEqualTo(CheckResult.Verdict.NOT_LINEARIZABLE);
            assertThat(r.failingKey()).isEqualTo(stale.key());
        }
    }

    @Test
    void fewKeysAndManyClientsStillDecide() throws Exception {
        // 20 clients on 10 keys: each key's part is long and crowded, the search's hard case.
        var g = KvEdnGenerator.generate(OPS, 10, 20, new Random(4));
        assertThat(check(g.lines()).verdict()).isEqualTo(CheckResult.Verdict.LINEARIZABLE);
        KvEdnGenerator.Stale stale = g.staleRead();
        var r = check(stale.lines());
        assertThat(r.verdict()).isEqualTo(CheckResult.Verdict.NOT_LINEARIZABLE);
        assertThat(r.failingKey()).isEqualTo(stale.key());
    }
}
