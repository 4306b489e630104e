package dbf0.kv.bench.disk;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the benchmark threads did since the last interval: the 2020 counts, the user bytes written,
 * and a latency histogram per operation type (HdrHistogram's {@link Recorder}, which threads write
 * without locks and a reader swaps out whole). Memory is bounded by the histograms' range (3
 * significant digits up to the longest latency seen), not by the run's length.
 */
final class OpCounters {

    private final LongAdder puts = new LongAdder();
    private final LongAdder deletes = new LongAdder();
    private final LongAdder deletesFound = new LongAdder();
    private final LongAdder gets = new LongAdder();
    private final LongAdder getsFound = new LongAdder();
    private final LongAdder userBytes = new LongAdder();
    private final Recorder putNanos = new Recorder(3);
    private final Recorder deleteNanos = new Recorder(3);
    private final Recorder getNanos = new Recorder(3);

    /** One interval's figures, taken by {@link #take}. */
    record Interval(
            long puts,
            long deletes,
            long deletesFound,
            long gets,
            long getsFound,
            long userBytes,
            Histogram putNanos,
            Histogram deleteNanos,
            Histogram getNanos) {

        /** Every operation's latency together. */
        Histogram allNanos() {
            Histogram all = putNanos.copy();
            all.add(deleteNanos);
            all.add(getNanos);
            return all;
        }

        /** Operations of every type. */
        long operations() {
            return puts + deletes + gets;
        }
    }

    void put(int keyBytes, int valueBytes, long nanos) {
        puts.increment();
        userBytes.add(keyBytes + valueBytes);
        putNanos.recordValue(nanos);
    }

    void delete(int keyBytes, boolean found, long nanos) {
        deletes.increment();
        if (found) {
            deletesFound.increment();
        }
        userBytes.add(keyBytes);
        deleteNanos.recordValue(nanos);
    }

    void get(boolean found, long nanos) {
        gets.increment();
        if (found) {
            getsFound.increment();
        }
        getNanos.recordValue(nanos);
    }

    /** The figures since the last call, and starts the next interval from zero. */
    Interval take() {
        return new Interval(
                puts.sumThenReset(),
                deletes.sumThenReset(),
                deletesFound.sumThenReset(),
                gets.sumThenReset(),
                getsFound.sumThenReset(),
                userBytes.sumThenReset(),
                putNanos.getIntervalHistogram(),
                deleteNanos.getIntervalHistogram(),
                getNanos.getIntervalHistogram());
    }
}
