package dbf0.kv.check;

import java.time.Duration;
import java.util.List;

/**
 * The checker's answer for a whole history.
 *
 * @param failingKey for NOT_LINEARIZABLE the first partition (in history order) that is not; for
 *     UNKNOWN the partition the time ran out in; null when linearizable
 * @param subHistory that partition's operations, sorted by invocation time (empty when
 *     linearizable)
 * @param longestPartial the longest prefix of a linearization the search found for that partition,
 *     in linearization order: the operations it could explain before getting stuck
 * @param partitions how many partitions the history has
 * @param operations how many operations were checked
 */
public record CheckResult<I, O>(
        Verdict verdict,
        String failingKey,
        List<Operation<I, O>> subHistory,
        List<Operation<I, O>> longestPartial,
        int partitions,
        int operations,
        Duration elapsed) {

    public enum Verdict {
        LINEARIZABLE,
        NOT_LINEARIZABLE,
        UNKNOWN
    }

    public boolean isLinearizable() {
        return verdict == Verdict.LINEARIZABLE;
    }
}
