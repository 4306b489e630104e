package dbf0.kv.bench.disk;

import java.math.BigDecimal;
import java.math.MathContext;
import org.HdrHistogram.Histogram;

/**
 * One interval's JSON line. It starts with the 2020 benchmark's seven fields, under their names, so
 * that one analysis reads both projects' files:
 *
 * <pre>
 *   {"nanoTime":..,"put":..,"delete":..,"deleteFound":..,"get":..,"getFound":..,"fileSize":..,
 * </pre>
 *
 * (counts in the interval; fileSize: bytes of every file under the data directory now), then adds
 * the run's settings and, in snake_case as dbf0's bench prints them:
 *
 * <ul>
 *   <li>{@code seconds}, {@code ops_per_sec}: the interval's length and rate;
 *   <li>{@code p50_us}, {@code p99_us}, {@code p999_us}, {@code max_us}: latency of every operation
 *       in the interval; {@code put_p99_us}, {@code delete_p99_us}, {@code get_p99_us} per type;
 *   <li>{@code user_bytes}, {@code bytes_written}, {@code write_amp}: key and value bytes the
 *       benchmark wrote, bytes the engine wrote to disk, and their ratio, all since the engine
 *       opened (amplification is a property of the whole run, not of one interval);
 *   <li>{@code live_bytes}, {@code space_amp}: key and value bytes of the keys holding a value now,
 *       and fileSize divided by it;
 *   <li>{@code blocks_read}, {@code read_amp}: data blocks read from disk in the interval, and per
 *       lookup (a get, or a delete, which looks the key up to report whether it was there);
 *   <li>{@code stall_ms}: time writers spent stalled in the interval;
 *   <li>{@code fsyncs}, {@code records_per_fsync}: forces of the log (or of the data file, for an
 *       engine without a log) in the interval, and puts plus deletes per force.
 * </ul>
 *
 * A figure that does not exist (no gets, an engine without blocks) or that the engine does not
 * count (SQLite's and LMDB's bytes written) is null.
 */
final class IntervalLine {

    private final StringBuilder json = new StringBuilder(640).append('{');

    private IntervalLine() {}

    /** What the line reports besides the interval's own counts. */
    record Context(
            String type,
            String mix,
            int threads,
            String fsync,
            String compaction,
            int keyBytes,
            int valueBytes) {}

    /** The running totals at the end of an interval. */
    record Totals(
            long fileSize,
            long userBytes,
            long liveKeys,
            EngineCounters engineSinceOpen,
            EngineCounters engineInInterval) {}

    static String format(
            long nanoTime, double seconds, OpCounters.Interval iv, Totals t, Context c) {
        IntervalLine line = new IntervalLine();
        line.field("nanoTime", nanoTime)
                .field("put", iv.puts())
                .field("delete", iv.deletes())
                .field("deleteFound", iv.deletesFound())
                .field("get", iv.gets())
                .field("getFound", iv.getsFound())
                .field("fileSize", t.fileSize());
        line.text("type", c.type())
                .text("mix", c.mix())
                .field("threads", c.threads())
                .text("fsync", c.fsync())
                .text("compaction", c.compaction());
        line.number("seconds", seconds).number("ops_per_sec", iv.operations() / seconds);
        Histogram all = iv.allNanos();
        line.micros("p50_us", all, 50)
                .micros("p99_us", all, 99)
                .micros("p999_us", all, 99.9)
                .micros("max_us", all, 100)
                .micros("put_p99_us", iv.putNanos(), 99)
                .micros("delete_p99_us", iv.deleteNanos(), 99)
                .micros("get_p99_us", iv.getNanos(), 99);
        EngineCounters total = t.engineSinceOpen();
        EngineCounters delta = t.engineInInterval();
        long liveBytes = t.liveKeys() < 0 ? -1 : t.liveKeys() * (c.keyBytes() + c.valueBytes());
        line.field("user_bytes", t.userBytes())
                .nullable("bytes_written", total.bytesWritten())
                .number(
                        "write_amp",
                        total.bytesWritten() < 0
                                ? Double.NaN
                                : ratio(total.bytesWritten(), t.userBytes()))
                .nullable("live_bytes", liveBytes)
                .number("space_amp", liveBytes < 0 ? Double.NaN : ratio(t.fileSize(), liveBytes))
                .nullable("blocks_read", delta.blocksRead())
                .number(
                        "read_amp",
                        delta.blocksRead() < 0
                                ? Double.NaN
                                : ratio(delta.blocksRead(), iv.gets() + iv.deletes()))
                .number("stall_ms", delta.stallNanos() / 1e6)
                .field("fsyncs", delta.fsyncs())
                .number("records_per_fsync", ratio(iv.puts() + iv.deletes(), delta.fsyncs()));
        return line.json.append('}').toString();
    }

    /** {@code a / b}, NaN (printed as null) when b is 0. */
    static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }

    private IntervalLine name(String name) {
        if (json.length() > 1) {
            json.append(',');
        }
        json.append('"').append(name).append("\":");
        return this;
    }

    private IntervalLine field(String name, long value) {
        name(name).json.append(value);
        return this;
    }

    /** A count that is -1 when the engine does not have it: printed as null. */
    private IntervalLine nullable(String name, long value) {
        name(name).json.append(value < 0 ? "null" : Long.toString(value));
        return this;
    }

    private IntervalLine text(String name, String value) {
        // the values are names of our own (types, mixes, policies): nothing to escape
        name(name).json.append('"').append(value).append('"');
        return this;
    }

    private IntervalLine number(String name, double value) {
        name(name);
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            json.append("null");
        } else {
            // six significant digits, never an exponent: easy to read, exact enough
            json.append(
                    new BigDecimal(value)
                            .round(new MathContext(6))
                            .stripTrailingZeros()
                            .toPlainString());
        }
        return this;
    }

    private IntervalLine micros(String name, Histogram nanos, double percentile) {
        if (nanos.getTotalCount() == 0) {
            return number(name, Double.NaN);
        }
        long value =
                percentile >= 100 ? nanos.getMaxValue() : nanos.getValueAtPercentile(percentile);
        return number(name, value / 1000.0);
    }
}
