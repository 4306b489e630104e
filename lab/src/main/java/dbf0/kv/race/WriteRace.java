package dbf0.kv.race;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The seed's exercise: several threads put distinct keys into one map at the same time, then we
 * count what is there. A correct map holds every key; a {@link java.util.HashMap} loses some (two
 * puts race on one bin, or a put races with a resize), reports a size() that disagrees with its
 * entries, and can throw from bins that a race left half converted to trees.
 *
 * <p>Each thread and the checks afterwards run under a time limit, because a corrupted bin can in
 * principle make a thread loop forever: such a thread is reported as stuck, never waited for.
 */
public final class WriteRace {

    /** What one map did. {@code exceptions} maps "ExceptionClass: message" to how often. */
    public record Result(
            String mapType,
            int threads,
            long expected,
            long size,
            long entriesIterated,
            long keysMissing,
            Map<String, Long> exceptions,
            int stuckThreads,
            double seconds) {

        /** Whether anything at all went wrong. */
        public boolean anomalous() {
            return size != expected
                    || entriesIterated != expected
                    || keysMissing != 0
                    || !exceptions.isEmpty()
                    || stuckThreads != 0;
        }

        public static Builder builder(String mapType, int threads) {
            return new Builder(mapType, threads);
        }

        /** Names the counts, so that no call site has to count positions. */
        public static final class Builder {
            private final String mapType;
            private final int threads;
            private long expected;
            private long size;
            private long entriesIterated;
            private long keysMissing;
            private Map<String, Long> exceptions = Map.of();
            private int stuckThreads;
            private double seconds;

            private Builder(String mapType, int threads) {
                this.mapType = mapType;
                this.threads = threads;
            }

            public Builder expected(long n) {
                expected = n;
                return this;
            }

            public Builder size(long n) {
                size = n;
                return this;
            }

            /** -1 when the map could not be iterated within the time limit. */
            public Builder entriesIterated(long n) {
                entriesIterated = n;
                return this;
            }

            /** -1 when the keys could not be looked up within the time limit. */
            public Builder keysMissing(long n) {
                keysMissing = n;
                return this;
            }

            public Builder exceptions(Map<String, Long> counts) {
                exceptions = counts;
                return this;
            }

            public Builder stuckThreads(int n) {
                stuckThreads = n;
                return this;
            }

            public Builder seconds(double s) {
                seconds = s;
                return this;
            }

            public Result build() {
                return new Result(
                        mapType,
                        threads,
                        expected,
                        size,
                        entriesIterated,
                        keysMissing,
                        exceptions,
                        stuckThreads,
                        seconds);
            }
        }
    }

    private WriteRace() {}

    /** Key {@code i} of thread {@code t}: 8 bytes, unique across threads. */
    static ByteArrayWrapper key(int thread, int i) {
        return new ByteArrayWrapper(ByteBuffer.allocate(8).putInt(thread).putInt(i).array());
    }

    public static Result run(String mapType, int threads, int keysPerThread, long timeLimitMillis)
            throws InterruptedException {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create(mapType);
        ByteArrayWrapper value = ByteArrayWrapper.of(1);
        Map<String, Long> exceptions = new LinkedHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers.add(
                    Thread.ofPlatform()
                            .name("write-race-" + t)
                            .daemon()
                            .start(
                                    () -> {
                                        try {
                                            go.await();
                                            for (int i = 0; i < keysPerThread; i++) {
                                                map.put(key(thread, i), value);
                                            }
                                        } catch (InterruptedException e) {
                                            Thread.currentThread().interrupt();
                                        } catch (RuntimeException | StackOverflowError e) {
                                            synchronized (exceptions) {
                                                exceptions.merge(
                                                        e.getClass().getSimpleName()
                                                                + ": "
                                                                + e.getMessage(),
                                                        1L,
                                                        Long::sum);
                                            }
                                        }
                                    }));
        }
        go.countDown();
        int stuck = joinAll(workers, start, timeLimitMillis);
        double seconds = (System.nanoTime() - start) / 1e9;

        long expected = (long) threads * keysPerThread;
        AtomicLong iterated = new AtomicLong(-1);
        AtomicLong missing = new AtomicLong(-1);
        // Reading a corrupted map can itself fail or hang: do it under the same limit.
        Thread check =
                Thread.ofPlatform()
                        .name("write-race-check")
                        .daemon()
                        .start(
                                () -> {
                                    try {
                                        long n = 0;
                                        for (var ignored : map.entrySet()) {
                                            n++;
                                        }
                                        iterated.set(n);
                                        long m = 0;
                                        for (int t = 0; t < threads; t++) {
                                            for (int i = 0; i < keysPerThread; i++) {
                                                if (!map.containsKey(key(t, i))) {
                                                    m++;
                                                }
                                            }
                                        }
                                        missing.set(m);
                                    } catch (RuntimeException e) {
                                        synchronized (exceptions) {
                                            exceptions.merge(
                                                    "while checking: "
                                                            + e.getClass().getSimpleName()
                                                            + ": "
                                                            + e.getMessage(),
                                                    1L,
                                                    Long::sum);
                                        }
                                    }
                                });
        check.join(timeLimitMillis);
        if (check.isAlive()) {
            stuck++;
        }
        Map<String, Long> copy;
        synchronized (exceptions) {
            copy = new LinkedHashMap<>(exceptions);
        }
        return Result.builder(mapType, threads)
                .expected(expected)
                .size(map.size())
                .entriesIterated(iterated.get())
                .keysMissing(missing.get())
                .exceptions(copy)
                .stuckThreads(stuck)
                .seconds(seconds)
                .build();
    }

    private static int joinAll(List<Thread> workers, long start, long timeLimitMillis)
            throws InterruptedException {
        int stuck = 0;
        for (Thread w : workers) {
            long left = timeLimitMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            w.join(Math.max(1, left));
            if (w.isAlive()) {
                stuck++;
            }
        }
        return stuck;
    }
}
