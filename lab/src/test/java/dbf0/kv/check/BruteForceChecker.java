package dbf0.kv.check;

import java.util.List;

/**
 * The definition, executed directly: try every order of the operations that respects real time (a
 * completed operation that returned strictly before another was invoked comes first), letting
 * pending operations take effect anywhere after their invocation or not at all. No event list, no
 * memo; only usable for a handful of operations, which is what it is for: a second opinion.
 */
final class BruteForceChecker {

    private BruteForceChecker() {}

    static <S, I, O> boolean linearizable(Model<S, I, O> model, List<Operation<I, O>> ops) {
        if (ops.size() > 12) {
            throw new IllegalArgumentException("brute force is for small histories");
        }
        return search(model, ops, 0, model.initialState());
    }

    private static <S, I, O> boolean search(
            Model<S, I, O> model, List<Operation<I, O>> ops, int done, S state) {
        boolean allCompletedDone = true;
        for (int i = 0; i < ops.size(); i++) {
            if ((done & (1 << i)) == 0 && !ops.get(i).isPending()) {
                allCompletedDone = false;
            }
        }
        if (allCompletedDone) {
            return true;
        }
        for (int i = 0; i < ops.size(); i++) {
            if ((done & (1 << i)) != 0 || !mayGoNext(ops, done, i)) {
                continue;
            }
            Operation<I, O> op = ops.get(i);
            List<S> next =
                    op.isPending()
                            ? model.stepUnknown(state, op.input())
                            : model.step(state, op.input(), op.output());
            for (S s : next) {
                if (search(model, ops, done | (1 << i), s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** No operation still to place must precede op i in real time. */
    private static boolean mayGoNext(List<? extends Operation<?, ?>> ops, int done, int i) {
        for (int j = 0; j < ops.size(); j++) {
            if (j != i
                    && (done & (1 << j)) == 0
                    && !ops.get(j).isPending()
                    && ops.get(j).returnTime() < ops.get(i).invokeTime()) {
                return false;
            }
        }
        return true;
    }
}
