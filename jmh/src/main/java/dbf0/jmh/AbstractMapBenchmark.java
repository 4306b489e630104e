package dbf0.jmh;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import java.util.Map;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * GET, PUT and a 90/10 mix on one of dbf0's map backends, straight on the map: what a server thread
 * pays for the storage part of a request, with no network and no protocol around it. {@link
 * MapBackendBenchmark} runs it on the thread-safe backends, {@link HashMapBenchmark} on the unsafe
 * {@code hashmap}, alone.
 *
 * <p>The map is shared by every benchmark thread ({@link Scope#Benchmark}) and holds {@value
 * #ENTRIES} entries of {@link Workload}'s 16-byte keys and 64-byte values from the start to the end
 * of a run:
 *
 * <ul>
 *   <li>{@code get}: looks up a stored key; every lookup finds its value.
 *   <li>{@code put}: stores a key's own value again under a stored key. The map replaces the
 *       entry's value and does not grow, so every iteration measures the same map.
 *   <li>{@code mixed}: each operation is a {@code put} with probability 10% and a {@code get}
 *       otherwise (the benchmark example of docs/1-seed.md, {@code setFrac} 0.1).
 * </ul>
 *
 * <p>Each thread picks keys uniformly at random from a sequence of its own, computed before the
 * run, so that choosing costs an array read and threads do not walk the keys in step. The key
 * passed to the map is an equal copy of the stored one, not the same object, as when a server
 * decodes a key off the wire: {@code equals} compares the bytes rather than finding the same
 * reference. The result is returned, so JMH's blackhole consumes it.
 *
 * <p>The score is operations per second summed over all threads ({@code -t}).
 */
@State(Scope.Benchmark)
public abstract class AbstractMapBenchmark extends RunDefaults {

    /** How many entries the map holds. */
    public static final int ENTRIES = 100_000;

    private Map<ByteArrayWrapper, ByteArrayWrapper> map;

    /** probes[i] equals the i-th stored key but is another object, with another array. */
    private ByteArrayWrapper[] probes;

    private ByteArrayWrapper[] values;

    /** The {@link MapBackends} name of the map to measure. */
    protected abstract String backend();

    @Setup(Level.Trial)
    public void fill(BenchmarkParams params) {
        String backend = backend();
        if (!MapBackends.isThreadSafe(backend) && params.getThreads() > 1) {
            throw new IllegalStateException(
                    "'"
                            + backend
                            + "' is not thread-safe: measure it with one thread (-t 1), not "
                            + params.getThreads());
        }
        ByteArrayWrapper[] keys = Workload.keys(ENTRIES);
        map = MapBackends.create(backend);
        probes = new ByteArrayWrapper[ENTRIES];
        values = new ByteArrayWrapper[ENTRIES];
        for (int i = 0; i < ENTRIES; i++) {
            values[i] = Workload.valueFor(keys[i]);
            map.put(keys[i], values[i]);
            probes[i] = keys[i].copy();
        }
        if (map.size() != ENTRIES) {
            throw new IllegalStateException(
                    "expected " + ENTRIES + " distinct keys, the map holds " + map.size());
        }
    }

    @Benchmark
    public ByteArrayWrapper get(Picks picks) {
        return map.get(probes[picks.next()]);
    }

    @Benchmark
    public ByteArrayWrapper put(Picks picks) {
        int i = picks.next();
        return map.put(probes[i], values[i]);
    }

    @Benchmark
    public ByteArrayWrapper mixed(Picks picks) {
        int i = picks.next();
        return picks.isPut() ? map.put(probes[i], values[i]) : map.get(probes[i]);
    }

    /**
     * One thread's random sequence of key indices and of put-or-get choices, drawn before the run
     * and replayed in a loop. Long enough (2^17 steps) that every key is reachable.
     */
    @State(Scope.Thread)
    public static class Picks {

        static final int STEPS = 1 << 17;
        static final int PUT_PERCENT = 10;

        private final int[] indices = new int[STEPS];
        private final boolean[] puts = new boolean[STEPS];
        private int step;

        @Setup(Level.Trial)
        public void draw(ThreadParams thread) {
            SplittableRandom random = new SplittableRandom(Workload.SEED + thread.getThreadIndex());
            for (int s = 0; s < STEPS; s++) {
                indices[s] = random.nextInt(ENTRIES);
                puts[s] = random.nextInt(100) < PUT_PERCENT;
            }
        }

        /** Moves to the next step and returns its key index. */
        int next() {
            step = (step + 1) & (STEPS - 1);
            return indices[step];
        }

        /** Whether the current step is a put (in {@code mixed}). */
        boolean isPut() {
            return puts[step];
        }
    }
}
