package dbf0.kv.bench.disk;

import dbf0.common.Words;
import dbf0.kv.storage.lsm.LsmOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One disk-bench run: open the engine, fill the key space first when the mix asks for it, run
 * {@code threads} threads for the duration, print one {@link IntervalLine} per interval (and one
 * for the last, shorter interval if the duration is not a multiple), close the engine.
 *
 * @param engineOptions the data directory and the engine settings every type reads
 * @param type the engine
 * @param pageSize the page size in bytes, for the engines that take one
 * @param keySpace keys are drawn from 0 .. keySpace-1
 * @param valueLength bytes of every value
 * @param mix what the threads do
 * @param knownKeyRate probability that a get or delete uses a recently put key
 * @param threads the benchmark threads
 * @param duration the measured run
 * @param interval the time between two lines
 */
record DiskBenchRun(
        LsmOptions engineOptions,
        EngineType type,
        int pageSize,
        long keySpace,
        int valueLength,
        Mix mix,
        double knownKeyRate,
        int threads,
        Duration duration,
        Duration interval) {

    /** What a finished run did in all, for the closing log line. */
    record Summary(long operations, double seconds, String failure) {}

    /** Runs it; each JSON line goes to {@code out}, progress to {@code log}. */
    Summary run(Consumer<String> out, PrintWriter log) throws IOException, InterruptedException {
        try (DiskEngine engine = type.open(engineOptions, pageSize)) {
            log.println("dbf0 disk-bench: " + engine.describe());
            log.flush();
            return measure(engine, out, log);
        }
    }

    private Summary measure(DiskEngine engine, Consumer<String> out, PrintWriter log)
            throws IOException, InterruptedException {
        KeyChooser keys = new KeyChooser(keySpace, mix, knownKeyRate);
        LiveKeys live = LiveKeys.forKeySpace(keySpace);
        OpCounters counters = new OpCounters();
        AtomicReference<String> failure = new AtomicReference<>();
        EngineCounters opened = engine.counters();
        long userBytes = 0;
        if (mix.preload()) {
            long started = System.nanoTime();
            preload(engine, keys, live, counters, failure);
            userBytes += counters.take().userBytes();
            log.printf(
                    "dbf0 disk-bench: wrote all %s in order first, in %.1f s (not measured)%n",
                    Words.count(keySpace, "key"), (System.nanoTime() - started) / 1e9);
            log.flush();
        }
        IntervalLine.Context context =
                new IntervalLine.Context(
                        type.cliName(),
                        mix.name(),
                        threads,
                        engineOptions.fsync().cliName(),
                        type.compacts()
                                ? engineOptions.compaction().name().toLowerCase(Locale.ROOT)
                                : "none",
                        keys.keyLength(),
                        valueLength);
        Worker[] workers = new Worker[threads];
        List<Thread> running = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(engine, keys, live, counters, failure, new SplittableRandom());
            running.add(Thread.ofPlatform().name("disk-bench-" + i).start(workers[i]));
        }
        long intervalStart = start;
        long operations = 0;
        EngineCounters previous = engine.counters();
        boolean last = false;
        while (!last) {
            long tick = Math.min(intervalStart + interval.toNanos(), end);
            sleepUntil(tick);
            last = tick == end || failure.get() != null;
            if (last) {
                for (Worker w : workers) {
                    w.stop = true;
                }
                for (Thread t : running) {
                    t.join();
                }
            }
            long now = System.nanoTime();
            OpCounters.Interval iv = counters.take();
            EngineCounters current = engine.counters();
            userBytes += iv.userBytes();
            operations += iv.operations();
            IntervalLine.Totals totals =
                    new IntervalLine.Totals(
                            DirectorySize.of(engineOptions.dataDir()),
                            userBytes,
                            live == null ? -1 : live.count(),
                            minus(current, opened),
                            minus(current, previous));
            out.accept(IntervalLine.format(now, (now - intervalStart) / 1e9, iv, totals, context));
            previous = current;
            intervalStart = now;
        }
        return new Summary(operations, (intervalStart - start) / 1e9, failure.get());
    }

    /** Writes every key once in ascending order, the threads sharing the key space in ranges. */
    private void preload(
            DiskEngine engine,
            KeyChooser keys,
            LiveKeys live,
            OpCounters counters,
            AtomicReference<String> failure)
            throws InterruptedException, IOException {
        List<Thread> loaders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            long from = keySpace * i / threads;
            long to = keySpace * (i + 1) / threads;
            loaders.add(
                    Thread.ofPlatform()
                            .name("disk-bench-load-" + i)
                            .start(
                                    () -> {
                                        SplittableRandom random = new SplittableRandom();
                                        for (long k = from; k < to && failure.get() == null; k++) {
                                            byte[] key = keys.format(k);
                                            byte[] value = new byte[valueLength];
                                            Worker.fill(random, value);
                                            try {
                                                engine.put(key, value);
                                            } catch (IOException | RuntimeException e) {
                                                failure.compareAndSet(null, e.toString());
                                                return;
                                            }
                                            counters.put(key.length, valueLength, 0);
                                            if (live != null) {
                                                live.put(k);
                                            }
                                        }
                                    }));
        }
        for (Thread t : loaders) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IOException("the load before the run failed: " + failure.get());
        }
    }

    private static void sleepUntil(long nanoTime) {
        for (long left = nanoTime - System.nanoTime(); left > 0; ) {
            LockSupport.parkNanos(left);
            left = nanoTime - System.nanoTime();
        }
    }

    private static EngineCounters minus(EngineCounters a, EngineCounters b) {
        return new EngineCounters(
                a.bytesWritten() < 0 ? -1 : a.bytesWritten() - b.bytesWritten(),
                a.blocksRead() < 0 ? -1 : a.blocksRead() - b.blocksRead(),
                a.stallNanos() - b.stallNanos(),
                a.fsyncs() - b.fsyncs());
    }

    /** Writes a long into a byte array at any offset, in one store. */
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** One benchmark thread: draws an operation by the mix, times it, counts it. */
    private final class Worker implements Runnable {
        private final DiskEngine engine;
        private final KeyChooser keys;
        private final LiveKeys live;
        private final OpCounters counters;
        private final AtomicReference<String> failure;
        private final SplittableRandom random;
        volatile boolean stop;

        Worker(
                DiskEngine engine,
                KeyChooser keys,
                LiveKeys live,
                OpCounters counters,
                AtomicReference<String> failure,
                SplittableRandom random) {
            this.engine = engine;
            this.keys = keys;
            this.live = live;
            this.counters = counters;
            this.failure = failure;
            this.random = random;
        }

        /**
         * Random bytes into {@code value}, a long at a time: a profile of a byte-at-a-time fill
         * showed it at several percent of a PUT_HEAVY run's samples, time neither engine spends.
         */
        static void fill(SplittableRandom random, byte[] value) {
            int i = 0;
            for (; i + 8 <= value.length; i += 8) {
                LONGS.set(value, i, random.nextLong());
            }
            for (long r = random.nextLong(); i < value.length; i++, r >>>= 8) {
                value[i] = (byte) r;
            }
        }

        @Override
        public void run() {
            try {
                while (!stop) {
                    step();
                }
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e.toString());
            }
        }

        private void step() throws IOException {
            int draw = random.nextInt(100);
            if (draw < mix.putPercent()) {
                long k = keys.putKey(random);
                byte[] key = keys.format(k);
                byte[] value = new byte[valueLength];
                fill(random, value);
                long t0 = System.nanoTime();
                engine.put(key, value);
                counters.put(key.length, valueLength, System.nanoTime() - t0);
                if (live != null) {
                    live.put(k);
                }
            } else if (draw < mix.putPercent() + mix.deletePercent()) {
                long k = keys.readKey(random);
                byte[] key = keys.format(k);
                long t0 = System.nanoTime();
                boolean found = engine.delete(key);
                counters.delete(key.length, found, System.nanoTime() - t0);
                if (live != null) {
                    live.delete(k);
                }
            } else {
                byte[] key = keys.format(keys.readKey(random));
                long t0 = System.nanoTime();
                boolean found = engine.get(key);
                counters.get(found, System.nanoTime() - t0);
            }
        }
    }
}
