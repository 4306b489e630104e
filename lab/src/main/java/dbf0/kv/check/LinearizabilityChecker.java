package dbf0.kv.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Decides whether a history is linearizable with respect to a model: Wing and Gong's (1993)
 * backtracking search over the history's call and return events, in the just-in-time form with
 * memoisation described by Lowe (2017), applied per partition (Horn and Kroening 2015).
 *
 * <p>The history becomes a doubly-linked list of events sorted by time. Scanning from the front,
 * each call event met before any return event belongs to an operation that is "minimal": nothing
 * still unlinearized must come before it, so it may be linearized next. Linearizing it means
 * applying it to the model and, if the model allows its output, removing its call and return events
 * from the list and starting again from the front. Meeting a return event means its operation
 * should already have taken effect and could not: undo the last choice (a stack) and try the next
 * candidate. Every (set of linearized operations, model state) reached is remembered: the future of
 * the search depends only on that pair, so reaching it again cannot succeed where it failed before,
 * and the cache turns an exponential search into one bounded by the number of distinct pairs.
 *
 * <p>Read-only operations (reads, a compare-and-set that did not swap: {@link Model#readOnly}) are
 * not branched on: one that the state allows and that may go next is linearized at once, alone
 * ({@link PartitionSearch}), which turns the orders of many concurrent reads into one.
 *
 * <p>Ties: intervals are closed. When one operation returns at the same instant another is invoked,
 * they are treated as concurrent (call events sort before return events at equal times), so either
 * order is allowed. Clocks cannot order events closer than their resolution, and the checker should
 * never report a violation that depends on such a guess.
 *
 * <p>Pending operations have no return event (it would be at +infinity), so nothing forces them to
 * take effect; the search succeeds once every completed operation is linearized. They are tried
 * only after the completed candidates, and configurations that a failed one dominates are cut
 * ({@link PartitionSearch}).
 */
public final class LinearizabilityChecker {

    private LinearizabilityChecker() {}

    /** Checks every partition in order on this thread, stopping at the first violation. */
    public static <S, I, O> CheckResult<I, O> check(History<S, I, O> history, Duration timeLimit) {
        return check(history, timeLimit, 1);
    }

    /**
     * Checks every partition, on {@code threads} threads when more than 1. The verdict is the same
     * either way: the reported partition is the first violating one in history order.
     */
    public static <S, I, O> CheckResult<I, O> check(
            History<S, I, O> history, Duration timeLimit, int threads) {
        long start = System.nanoTime();
        long deadline = start + Math.min(timeLimit.toNanos(), Long.MAX_VALUE / 4);
        Model<S, I, O> model = history.model();
        Map<String, List<Operation<I, O>>> parts = model.partition(history.operations());
        int n = history.size();
        if (threads <= 1 || parts.size() <= 1) {
            for (Map.Entry<String, List<Operation<I, O>>> part : parts.entrySet()) {
                PartResult<I, O> r = checkPartition(model, part.getValue(), deadline);
                if (r.verdict() != CheckResult.Verdict.LINEARIZABLE) {
                    return failure(r, part.getKey(), parts.size(), n, start);
                }
            }
            return success(parts.size(), n, start);
        }
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        threads, Thread.ofPlatform().name("check").daemon().factory());
        try {
            List<Map.Entry<String, Future<PartResult<I, O>>>> futures = new ArrayList<>();
            for (Map.Entry<String, List<Operation<I, O>>> part : parts.entrySet()) {
                futures.add(
                        Map.entry(
                                part.getKey(),
                                pool.submit(
                                        () -> checkPartition(model, part.getValue(), deadline))));
            }
            for (Map.Entry<String, Future<PartResult<I, O>>> f : futures) {
                PartResult<I, O> r = f.getValue().get();
                if (r.verdict() != CheckResult.Verdict.LINEARIZABLE) {
                    return failure(r, f.getKey(), parts.size(), n, start);
                }
            }
            return success(parts.size(), n, start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "checking a partition failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static <I, O> CheckResult<I, O> success(int parts, int n, long start) {
        return new CheckResult<>(
                CheckResult.Verdict.LINEARIZABLE,
                null,
                List.of(),
                List.of(),
                parts,
                n,
                Duration.ofNanos(System.nanoTime() - start));
    }

    private static <I, O> CheckResult<I, O> failure(
            PartResult<I, O> r, String key, int parts, int n, long start) {
        List<Operation<I, O>> sorted = new ArrayList<>(r.operations());
        sorted.sort(Comparator.comparingLong(Operation<I, O>::invokeTime));
        return new CheckResult<>(
                r.verdict(),
                key,
                List.copyOf(sorted),
                r.longestPartial(),
                parts,
                n,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** One partition's verdict and the longest partial linearization found (in order). */
    record PartResult<I, O>(
            CheckResult.Verdict verdict,
            List<Operation<I, O>> operations,
            List<Operation<I, O>> longestPartial) {}

    /** Searches one partition; {@code deadline} is a {@link System#nanoTime()} value. */
    static <S, I, O> PartResult<I, O> checkPartition(
            Model<S, I, O> model, List<Operation<I, O>> ops, long deadline) {
        return new PartitionSearch<>(model, ops).run(deadline);
    }
}
