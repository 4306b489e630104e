package dbf0.kv.bench.resp;

import com.google.gson.JsonObject;
import dbf0.common.Words;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * What a {@link RespLoad} run measured, merged over its connections: the operations completed in
 * the measured interval (from the end of the warm-up until the last connection stopped), their
 * latency, and the replies that were not what a healthy run gets.
 *
 * @param errors error replies (a MOVED, a refused WAIT...), counted among the operations
 * @param waitShort WAIT replies that counted fewer replicas than asked for
 * @param firstError the text of the first error reply seen, or null
 */
record RespLoadResult(
        long operations,
        double seconds,
        Histogram latencyMicros,
        long errors,
        long waitShort,
        String firstError) {

    /** Merges the connections' counts; {@code measureFrom} is when the warm-up ended. */
    static RespLoadResult of(List<LoadConnection> connections, long measureFromNanos) {
        Histogram all = new Histogram(3);
        long operations = 0;
        long errors = 0;
        long waitShort = 0;
        long last = measureFromNanos;
        String first = null;
        for (LoadConnection c : connections) {
            all.add(c.latencyMicros);
            operations += c.operations;
            errors += c.errors;
            waitShort += c.waitShort;
            last = Math.max(last, c.finishedNanos);
            if (first == null) {
                first = c.firstError;
            }
        }
        return new RespLoadResult(
                operations, (last - measureFromNanos) / 1e9, all, errors, waitShort, first);
    }

    double opsPerSecond() {
        return seconds > 0 ? operations / seconds : 0;
    }

    /** The JSON object printed on stdout; latencies in milliseconds, as redis-benchmark's CSV. */
    JsonObject toJson(JsonObject settings) {
        JsonObject json = new JsonObject();
        json.addProperty("ops", operations);
        json.addProperty("seconds", round(seconds, 3));
        json.addProperty("ops_per_sec", round(opsPerSecond(), 1));
        json.addProperty("p50_ms", millis(50));
        json.addProperty("p99_ms", millis(99));
        json.addProperty("p999_ms", millis(99.9));
        json.addProperty("max_ms", latencyMicros.getMaxValue() / 1e3);
        json.addProperty("errors", errors);
        json.addProperty("wait_short", waitShort);
        if (firstError != null) {
            json.addProperty("first_error", firstError);
        }
        settings.entrySet().forEach(e -> json.add(e.getKey(), e.getValue()));
        return json;
    }

    /** The run in one line for a person. */
    String summary() {
        return String.format(
                Locale.ROOT,
                "%,.0f ops/s over %.1f s (%s); latency p50 %.3f ms, p99 %.3f ms; %s%s",
                opsPerSecond(),
                seconds,
                Words.count(operations, "op"),
                millis(50),
                millis(99),
                Words.count(errors, "error reply", "error replies"),
                waitShort > 0 ? "; " + Words.count(waitShort, "short WAIT") : "");
    }

    private double millis(double percentile) {
        return latencyMicros.getTotalCount() == 0
                ? 0
                : latencyMicros.getValueAtPercentile(percentile) / 1e3;
    }

    private static double round(double value, int places) {
        double scale = Math.pow(10, places);
        return Math.round(value * scale) / scale;
    }
}
