package dbf0.kv.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * applying it to the model and, if the model allows its output, removing its call and return
 * events from the list and starting again from the front. Meeting a return event means its
 * operation should already have taken effect and could not: undo the last choice (a stack) and try
 * the next candidate. Every (set of linearized operations, model state) reached is remembered: the
 * future of the search depends only on that pair, so reaching it again cannot succeed where it
 * failed before, and the cache turns an exponential search into one bounded by the number of
 * distinct pairs.
 *
 * <p>Ties: intervals are closed. When one operation returns at the same instant another is
 * invoked, they are treated as concurrent (call events sort before return events at equal
 * times), so either order is allowed. Clocks cannot order events closer than their resolution,
 * and the checker should never report a violation that depends on such a guess.
 *
 * <p>Pending operations have no return event (it would be at +infinity), so nothing forces them to
 * take effect; the search succeeds once every completed operation is linearized.
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
  public static <S, I, O> CheckResult<I, O> check(History<S, I, O> history, Duration timeLimit, int threads) {
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
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "check");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Map.Entry<String, Future<PartResult<I, O>>>> futures = new ArrayList<>();
      for (Map.Entry<String, List<Operation<I, O>>> part : parts.entrySet()) {
        futures.add(Map.entry(part.getKey(), pool.submit(() -> checkPartition(model, part.getValue(), deadline))));
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
      throw new IllegalStateException("checking a partition failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private static <I, O> CheckResult<I, O> success(int parts, int n, long start) {
    return new CheckResult<>(CheckResult.Verdict.LINEARIZABLE, null, List.of(), List.of(), parts, n,
        Duration.ofNanos(System.nanoTime() - start));
  }

  private static <I, O> CheckResult<I, O> failure(PartResult<I, O> r, String key, int parts, int n, long start) {
    List<Operation<I, O>> sorted = new ArrayList<>(r.operations());
    sorted.sort(Comparator.comparingLong(Operation<I, O>::invokeTime));
    return new CheckResult<>(r.verdict(), key, List.copyOf(sorted), r.longestPartial(), parts, n,
        Duration.ofNanos(System.nanoTime() - start));
  }

  /** One partition's verdict and the longest partial linearization found (in order). */
  record PartResult<I, O>(CheckResult.Verdict verdict, List<Operation<I, O>> operations,
      List<Operation<I, O>> longestPartial) {}

  /** A call or return event in the doubly-linked list; {@code match} links a call to its return. */
  private static final class Event {
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

  /** A choice made: which call was linearized, the state before it, and the states it could lead to. */
  private record Frame<S>(Event call, S before, List<S> choices, int chosen) {}

  /** The memo key: which operations are linearized and the state they left. */
  private static final class Visited<S> {
    final BitSet linearized;
    final S state;
    final Model<S, ?, ?> model;
    final int hash;

    Visited(BitSet linearized, S state, Model<S, ?, ?> model) {
      this.linearized = linearized;
      this.state = state;
      this.model = model;
      this.hash = 31 * linearized.hashCode() + model.stateHash(state);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Visited<?> v && v.hash == hash && v.linearized.equals(linearized)
          && model.stateEquals(state, cast(v.state));
    }

    @SuppressWarnings("unchecked")
    private S cast(Object s) {
      return (S) s;
    }
  }

  static final class TimeUp extends RuntimeException {
    TimeUp() {
      super(null, null, false, false);
    }
  }

  /** Searches one partition; {@code deadline} is a {@link System#nanoTime()} value. */
  static <S, I, O> PartResult<I, O> checkPartition(Model<S, I, O> model, List<Operation<I, O>> ops, long deadline) {
    int n = ops.size();
    List<Event> events = new ArrayList<>(2 * n);
    int remaining = 0;  // completed operations not yet linearized
    for (int i = 0; i < n; i++) {
      Operation<I, O> op = ops.get(i);
      Event call = new Event(i, true, op.invokeTime());
      events.add(call);
      if (!op.isPending()) {
        Event ret = new Event(i, false, op.returnTime());
        call.match = ret;
        events.add(ret);
        remaining++;
      }
    }
    // Calls before returns at equal times: closed intervals (see the class comment).
    events.sort(Comparator.comparingLong((Event e) -> e.time).thenComparing(e -> !e.call).thenComparingInt(e -> e.op));
    Event head = new Event(-1, false, Long.MIN_VALUE);
    Event tail = new Event(-1, false, Long.MAX_VALUE);
    Event last = head;
    for (Event e : events) {
      last.next = e;
      e.prev = last;
      last = e;
    }
    last.next = tail;
    tail.prev = last;
    events = null;

    S state = model.initialState();
    BitSet linearized = new BitSet(n);
    Set<Visited<S>> visited = new HashSet<>();
    ArrayList<Frame<S>> stack = new ArrayList<>();
    List<Integer> longest = List.of();
    if (remaining == 0) {
      return new PartResult<>(CheckResult.Verdict.LINEARIZABLE, ops, List.of());
    }
    Event entry = head.next;
    long steps = 0;
    while (true) {
      if ((++steps & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
        return new PartResult<>(CheckResult.Verdict.UNKNOWN, ops, toOps(ops, longest));
      }
      Frame<S> pushed = null;
      if (entry != tail && entry.call) {
        Operation<I, O> op = ops.get(entry.op);
        List<S> choices = op.isPending() ? effects(model, state, op.input())
            : model.step(state, op.input(), op.output());
        pushed = tryChoices(model, entry, state, choices, 0, linearized, visited);
        if (pushed == null) {
          entry = entry.next;
          continue;
        }
      } else {
        // A return event (or the end) reached: its operation had to be linearized by now.
        while (pushed == null) {
          if (stack.isEmpty()) {
            return new PartResult<>(CheckResult.Verdict.NOT_LINEARIZABLE, ops, toOps(ops, longest));
          }
          Frame<S> top = stack.remove(stack.size() - 1);
          unlift(top.call());
          linearized.clear(top.call().op);
          if (top.call().match != null) {
            remaining++;
          }
          state = top.before();
          // The same operation may still lead to another state (nondeterministic models)...
          pushed = tryChoices(model, top.call(), state, top.choices(), top.chosen() + 1, linearized, visited);
          if (pushed == null) {
            // ...or, failing that, the next candidate after it may be linearized instead.
            entry = top.call().next;
            if (entry != tail && entry.call) {
              break;
            }
          }
        }
        if (pushed == null) {
          continue;
        }
      }
      stack.add(pushed);
      state = pushed.choices().get(pushed.chosen());
      lift(pushed.call());
      if (pushed.call().match != null) {
        remaining--;
      }
      if (stack.size() > longest.size()) {
        longest = stack.stream().map(f -> f.call().op).toList();
      }
      if (remaining == 0) {
        return new PartResult<>(CheckResult.Verdict.LINEARIZABLE, ops, toOps(ops, longest));
      }
      entry = head.next;
    }
  }

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

  /**
   * Tries the states {@code choices[from..]} for linearizing {@code call} in {@code state}; returns
   * the frame for the first whose (linearized set, state) was not seen before, marking it seen and
   * the operation linearized, or null when every choice was seen already.
   */
  private static <S> Frame<S> tryChoices(Model<S, ?, ?> model, Event call, S state, List<S> choices, int from,
      BitSet linearized, Set<Visited<S>> visited) {
    for (int k = from; k < choices.size(); k++) {
      linearized.set(call.op);
      if (visited.add(new Visited<>((BitSet) linearized.clone(), choices.get(k), model))) {
        return new Frame<>(call, state, choices, k);
      }
      linearized.clear(call.op);
    }
    return null;
  }

  // Dancing links: an event removed keeps its own pointers, so undoing in reverse order restores it.
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

  private static <I, O> List<Operation<I, O>> toOps(List<Operation<I, O>> ops, List<Integer> order) {
    return order.stream().map(ops::get).toList();
  }
}
