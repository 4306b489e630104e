package dbf0.kv.check;

import dbf0.kv.check.LinearizabilityChecker.PartResult;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * One partition's search. Candidates are tried in two phases: first the completed operations whose
 * call comes before the first return, then the pending ones. Trying completed ones first means a
 * configuration with fewer pending operations used up is usually finished before one with more,
 * which is what {@link #dominated} needs to cut the latter.
 */
final class PartitionSearch<S, I, O> {
    final Model<S, I, O> model;
    final List<Operation<I, O>> ops;
    final Event head = new Event(-1, false, Long.MIN_VALUE);
    final Event tail = new Event(-1, false, Long.MAX_VALUE);
    final BitSet linearized;
    final Memo<S> visited;
    final ArrayList<Frame<S>> stack = new ArrayList<>();

    /** Which operations are pending; null when none are (then no dominance bookkeeping). */
    final BitSet pendingOps;

    /** Which operations are completed and read-only ({@link Model#readOnly}). */
    final boolean[] readOnly;

    /**
     * Finished, failed configurations: (completed ops linearized, state) -> pending ops used up.
     */
    final Map<Visited<S>, List<long[]>> failed = new java.util.HashMap<>();

    S state;
    int remaining; // completed operations not yet linearized
    // For explaining a failure; copied off the stack as it backs off a new peak (savePeak).
    List<Integer> longest = List.of();
    int peak;

    PartitionSearch(Model<S, I, O> model, List<Operation<I, O>> ops) {
        this.model = model;
        this.ops = ops;
        this.visited = new Memo<>(model);
        int n = ops.size();
        linearized = new BitSet(n);
        readOnly = new boolean[n];
        BitSet pending = new BitSet(n);
        List<Event> events = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            Operation<I, O> op = ops.get(i);
            Event call = new Event(i, true, op.invokeTime());
            events.add(call);
            if (op.isPending()) {
                pending.set(i);
            } else {
                Event ret = new Event(i, false, op.returnTime());
                call.match = ret;
                events.add(ret);
                remaining++;
                readOnly[i] = model.readOnly(op.input(), op.output());
            }
        }
        pendingOps = pending.isEmpty() ? null : pending;
        // Calls before returns at equal times: closed intervals (see the class comment).
        events.sort(
                (a, b) ->
                        a.time != b.time
                                ? Long.compare(a.time, b.time)
                                : a.call != b.call
                                        ? (a.call ? -1 : 1)
                                        : Integer.compare(a.op, b.op));
        Event last = head;
        for (Event e : events) {
            last.next = e;
            e.prev = last;
            last = e;
        }
        last.next = tail;
        tail.prev = last;
        state = model.initialState();
    }

    PartResult<I, O> run(long deadline) {
        if (remaining == 0) {
            return new PartResult<>(CheckResult.Verdict.LINEARIZABLE, ops, List.of());
        }
        Event entry = null; // null: a configuration just reached, not scanned yet
        boolean pendingPhase = false;
        long steps = 0;
        while (true) {
            // Out of time, or another partition failed (parallel mode cancels the rest).
            if ((++steps & 0x3ff) == 0
                    && (System.nanoTime() - deadline > 0
                            || Thread.currentThread().isInterrupted())) {
                savePeak();
                return new PartResult<>(CheckResult.Verdict.UNKNOWN, ops, toOps(ops, longest));
            }
            Frame<S> pushed = null;
            boolean deadEnd = false;
            if (entry == null) {
                // A new configuration: a read-only operation that may go next goes, alone.
                Event free = freeOperation();
                if (free == null) {
                    entry = head.next;
                    pendingPhase = false;
                    continue;
                }
                Operation<I, O> op = ops.get(free.op);
                pushed =
                        tryChoices(
                                free,
                                state,
                                model.step(state, op.input(), op.output()),
                                0,
                                false,
                                true);
                // Seen before (so failed), or cut: so does this configuration, then.
                deadEnd = pushed == null;
            } else if (entry != tail && entry.call) {
                Operation<I, O> op = ops.get(entry.op);
                // A read-only one cannot go next here, or freeOperation would have taken it.
                if (op.isPending() != pendingPhase || readOnly[entry.op]) {
                    entry = entry.next;
                    continue;
                }
                List<S> choices =
                        pendingPhase
                                ? effects(model, state, op.input())
                                : model.step(state, op.input(), op.output());
                pushed = tryChoices(entry, state, choices, 0, pendingPhase, false);
                if (pushed == null) {
                    entry = entry.next;
                    continue;
                }
            } else if (!pendingPhase && pendingOps != null) {
                // No completed candidate left before this return: now the pending ones.
                pendingPhase = true;
                entry = head.next;
                continue;
            } else {
                // A return event (or the end) reached: its operation had to be linearized by
                // now, and no candidate allows it.
                deadEnd = true;
            }
            if (deadEnd) {
                // Undo the last choice; and the one before it too while the undone one was
                // forced (its failure is its configuration's).
                Frame<S> top;
                do {
                    if (stack.isEmpty()) {
                        return new PartResult<>(
                                CheckResult.Verdict.NOT_LINEARIZABLE, ops, toOps(ops, longest));
                    }
                    savePeak();
                    top = stack.remove(stack.size() - 1);
                    if (pendingOps != null) {
                        remember(top.choices().get(top.chosen()));
                    }
                    unlift(top.call());
                    linearized.clear(top.call().op);
                    if (top.call().match != null) {
                        remaining++;
                    }
                    state = top.before();
                } while (top.forced());
                // The same operation may still lead to another state (nondeterministic
                // models)...
                pushed =
                        tryChoices(
                                top.call(),
                                state,
                                top.choices(),
                                top.chosen() + 1,
                                top.pendingPhase(),
                                false);
                if (pushed == null) {
                    // ...or, failing that, the next candidate after it may be linearized
                    // instead.
                    entry = top.call().next;
                    pendingPhase = top.pendingPhase();
                    continue;
                }
            }
            stack.add(pushed);
            state = pushed.choices().get(pushed.chosen());
            lift(pushed.call());
            if (pushed.call().match != null) {
                remaining--;
            }
            peak = Math.max(peak, stack.size());
            if (remaining == 0) {
                return new PartResult<>(CheckResult.Verdict.LINEARIZABLE, ops, ops);
            }
            entry = null;
        }
    }

    /**
     * A completed read-only operation ({@link Model#readOnly}) that may be linearized next and that
     * the state allows, or null. Taking it first loses nothing: if any order of the rest succeeds,
     * moving it to the front of that order still does, since it changes no state and nothing left
     * had to come before it (nothing left returned before it was called). So the search takes it
     * alone, without trying the others in its place; many concurrent reads of one value then cost
     * one order instead of all of theirs.
     */
    private Event freeOperation() {
        for (Event e = head.next; e != tail && e.call; e = e.next) {
            if (readOnly[e.op]) {
                Operation<I, O> op = ops.get(e.op);
                if (!model.step(state, op.input(), op.output()).isEmpty()) {
                    return e;
                }
            }
        }
        return null;
    }

    /** Copies the stack if it is at a new peak: copying at every peak would cost O(n^2). */
    private void savePeak() {
        if (stack.size() == peak && peak > longest.size()) {
            longest = stack.stream().map(f -> f.call().op).toList();
        }
    }

    /**
     * Tries the states {@code choices[from..]} for linearizing {@code call} in {@code state};
     * returns the frame for the first whose configuration is new and not dominated, marking it seen
     * and the operation linearized, or null when there is none.
     */
    Frame<S> tryChoices(
            Event call, S before, List<S> choices, int from, boolean pendingPhase, boolean forced) {
        for (int k = from; k < choices.size(); k++) {
            linearized.set(call.op);
            S next = choices.get(k);
            if (!wasted(call, next) && !dominated(next) && visited.add(linearized, next)) {
                return new Frame<>(call, before, choices, k, pendingPhase, forced);
            }
            linearized.clear(call.op);
        }
        return null;
    }

    /**
     * Whether the pending operation linearized just before {@code call} (the top of the stack) made
     * no difference: {@code call} would have reached {@code next} without it. Then this branch is
     * dominated by its sibling that linearizes {@code call} straight away (same completed set, same
     * state, one pending operation fewer used up), which the search tries too, so it is cut. This
     * is what stops pending writes that a later write overwrites from multiplying the search.
     */
    private boolean wasted(Event call, S next) {
        if (pendingOps == null || stack.isEmpty()) {
            return false;
        }
        Frame<S> top = stack.get(stack.size() - 1);
        if (!top.pendingPhase()) {
            return false;
        }
        Operation<I, O> op = ops.get(call.op);
        // The same function the search would use in the sibling, so the sibling really is
        // tried.
        List<S> without =
                op.isPending()
                        ? effects(model, top.before(), op.input())
                        : model.step(top.before(), op.input(), op.output());
        for (S s : without) {
            if (model.stateEquals(s, next)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the configuration (linearized, next) is no better than one already finished without
     * success: the same completed operations linearized, the same state, and no more pending
     * operations still available. Whatever could be done from it could be done from that one (a
     * pending operation never has to take effect), so it cannot succeed either.
     */
    private boolean dominated(S next) {
        if (pendingOps == null || failed.isEmpty()) {
            return false;
        }
        BitSet completed = (BitSet) linearized.clone();
        completed.andNot(pendingOps);
        List<long[]> used = failed.get(new Visited<>(completed, next, model));
        if (used == null) {
            return false;
        }
        BitSet mine = (BitSet) linearized.clone();
        mine.and(pendingOps);
        long[] m = mine.toLongArray();
        for (long[] u : used) {
            if (subset(u, m)) {
                return true;
            }
        }
        return false;
    }

    private static boolean subset(long[] a, long[] b) {
        for (int w = 0; w < a.length; w++) {
            if ((a[w] & ~(w < b.length ? b[w] : 0L)) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Records the current configuration, whose every continuation has failed. */
    private void remember(S current) {
        BitSet completed = (BitSet) linearized.clone();
        completed.andNot(pendingOps);
        BitSet used = (BitSet) linearized.clone();
        used.and(pendingOps);
        failed.computeIfAbsent(new Visited<>(completed, current, model), k -> new ArrayList<>())
                .add(used.toLongArray());
    }

    /**
     * A call or return event in the doubly-linked list; {@code match} links a call to its return.
     */
    static final class Event {
        final int op;
        final boolean call;
        final long time;
        Event match;
        Event prev;
        Event next;

        Event(int op, boolean call, long time) {
            this.op = op;
            this.call = call;
            this.time = time;
        }
    }

    /**
     * A choice made: which call was linearized, the state before it, the states it could lead to,
     * which one was taken, and in which scan phase (so that backtracking resumes the same scan).
     * {@code forced}: a read-only operation taken without trying the others ({@link
     * #freeOperation}), so when it fails, so does the configuration before it.
     */
    private record Frame<S>(
            Event call,
            S before,
            List<S> choices,
            int chosen,
            boolean pendingPhase,
            boolean forced) {}

    /**
     * What a pending operation may change. Outcomes that leave the state as it is are dropped:
     * linearizing the operation there only uses it up, and leaving it pending keeps every option
     * open, so that branch can never succeed where skipping it fails.
     */
    private static <S, I> List<S> effects(Model<S, I, ?> model, S state, I input) {
        List<S> all = model.stepUnknown(state, input);
        List<S> changed = null;
        for (int k = 0; k < all.size(); k++) {
            boolean same = model.stateEquals(all.get(k), state);
            if (same && changed == null) {
                changed = new ArrayList<>(all.subList(0, k));
            } else if (!same && changed != null) {
                changed.add(all.get(k));
            }
        }
        return changed == null ? all : changed;
    }

    // Dancing links: an event removed keeps its own pointers, so undoing in reverse order restores
    // it.
    private static void lift(Event call) {
        call.prev.next = call.next;
        call.next.prev = call.prev;
        Event ret = call.match;
        if (ret != null) {
            ret.prev.next = ret.next;
            ret.next.prev = ret.prev;
        }
    }

    private static void unlift(Event call) {
        Event ret = call.match;
        if (ret != null) {
            ret.prev.next = ret;
            ret.next.prev = ret;
        }
        call.prev.next = call;
        call.next.prev = call;
    }

    private static <I, O> List<Operation<I, O>> toOps(
            List<Operation<I, O>> ops, List<Integer> order) {
        return order.stream().map(ops::get).toList();
    }
}
