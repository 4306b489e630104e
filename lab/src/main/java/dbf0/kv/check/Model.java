package dbf0.kv.check;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A sequential specification: what a single, non-concurrent copy of the object would do. The
 * checker asks whether the concurrent history could have come from it.
 *
 * @param <S> the object's state; treated as immutable (the search keeps old states to backtrack to)
 * @param <I> an operation's input
 * @param <O> an operation's output
 */
public interface Model<S, I, O> {

    S initialState();

    /**
     * The states the object can be in after applying {@code input} in {@code state} and answering
     * {@code output}; empty when that answer is impossible there. A list rather than one state so
     * that nondeterministic specifications fit.
     */
    List<S> step(S state, I input, O output);

    /**
     * The states after an operation whose answer nobody saw (a pending one): every outcome that is
     * possible from {@code state}. It need not include "no effect": the checker already allows a
     * pending operation never to take effect.
     */
    List<S> stepUnknown(S state, I input);

    /**
     * Splits a history into independent sub-histories, each checked on its own from the initial
     * state (P-compositionality, Horn and Kroening 2015): a history is linearizable exactly when
     * every part is, if operations in different parts never touch the same state. The default is
     * one part. Parts come back in the order their first operation appears.
     */
    default Map<String, List<Operation<I, O>>> partition(List<Operation<I, O>> history) {
        Map<String, List<Operation<I, O>>> one = new LinkedHashMap<>();
        one.put("", history);
        return one;
    }

    /**
     * Whether this completed operation leaves the state as it was in every state {@link #step}
     * allows it in (a read, a compare-and-set that did not swap). The checker then linearizes it as
     * soon as it may, without trying the other orders (sound only if this holds). Default false:
     * every operation is tried in every order.
     */
    default boolean readOnly(I input, O output) {
        return false;
    }

    /** State equality for memoisation; override when {@code S} has no suitable {@code equals}. */
    default boolean stateEquals(S a, S b) {
        return Objects.equals(a, b);
    }

    default int stateHash(S s) {
        return Objects.hashCode(s);
    }

    /**
     * A short human description, e.g. {@code put x=1 -> ok}; {@code output} is null when pending.
     */
    String describe(I input, O output);

    /** The model's name as the command line spells it. */
    String name();
}
