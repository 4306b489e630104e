package dbf0.kv.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dbf0.base.client.KeyValueClientStats;
import dbf0.common.Words;
import dbf0.kv.workload.KeyedWorkload;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * What one benchmark run measured. {@link #toJson()} keeps the seed's four counters under their
 * seed names (the 2020 study's analysis reads them) and adds the derived figures.
 *
 * @param seconds the measured interval: from the end of the warm-up to all clients having stopped
 * @param errors operations or connections that failed while the run was going on
 * @param latencyMicros one entry per operation, in microseconds
 * @param log what the server's write-ahead log did in the measured interval, or null when the run
 *     had no log (no {@code --data-dir}, or a server elsewhere)
 * @param cpuSeconds CPU time this JVM used in the measured interval, all threads (NaN if unknown):
 *     the clients' alone with {@code --connect}, server and clients together otherwise
 */
public record BenchmarkResult(
        KeyValueClientStats stats,
        double seconds,
        long errors,
        Histogram latencyMicros,
        BenchmarkConfig config,
        LogActivity log,
        double cpuSeconds) {

    /** A result of a run without a write-ahead log, its CPU time unknown. */
    public BenchmarkResult(
            KeyValueClientStats stats,
            double seconds,
            long errors,
            Histogram latencyMicros,
            BenchmarkConfig config) {
        this(stats, seconds, errors, latencyMicros, config, null, Double.NaN);
    }

    /** Whether any operation completed: the Benchmark's exit status is 0 if so, else 1. */
    public boolean anySucceeded() {
        return stats.getOperations() > 0;
    }

    public double opsPerSecond() {
        return stats.getOperations() / seconds;
    }

    /**
     * The whole latency histogram, so that runs on several client machines can be merged into one
     * distribution (percentiles cannot be averaged): HdrHistogram's own compressed encoding (its V2
     * format, deflated), in base64. Java's {@code Histogram.decodeFromCompressedByteBuffer} reads
     * it back, and {@code dbf0lab.histograms} in Python.
     */
    static String encodeHistogram(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /**
     * The run in one line for a person, beside the JSON that programs read: throughput, the latency
     * percentiles in milliseconds, and the errors.
     */
    public String summary() {
        return String.format(
                Locale.ROOT,
                "%,.0f ops/s over %.1f s (%s); latency p50 %s, p99 %s, max %s; %s",
                opsPerSecond(),
                seconds,
                Words.count(stats.getOperations(), "op"),
                millis(latencyMicros.getValueAtPercentile(50)),
                millis(latencyMicros.getValueAtPercentile(99)),
                millis(latencyMicros.getMaxValue()),
                Words.count(errors, "error"));
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
    }

    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("set", stats.getSet());
        json.addProperty("get", stats.getGet());
        json.addProperty("found", stats.getFound());
        json.addProperty("missingKey", stats.getMissingKey());
        json.addProperty("errors", errors);
        json.addProperty("seconds", Math.round(seconds * 1000) / 1000.0);
        json.addProperty("ops_per_sec", Math.round(opsPerSecond() * 10) / 10.0);
        json.addProperty("p50_us", latencyMicros.getValueAtPercentile(50));
        json.addProperty("p90_us", latencyMicros.getValueAtPercentile(90));
        json.addProperty("p99_us", latencyMicros.getValueAtPercentile(99));
        json.addProperty("p999_us", latencyMicros.getValueAtPercentile(99.9));
        json.addProperty("max_us", latencyMicros.getMaxValue());
        if (!Double.isNaN(cpuSeconds) && stats.getOperations() > 0) {
            // CPU of this process per operation (its clients alone with --connect), and cores busy
            json.addProperty(
                    "process_cpu_us_per_op",
                    Math.round(cpuSeconds * 1e9 / stats.getOperations()) / 1000.0);
            json.addProperty("process_cpu_cores", Math.round(cpuSeconds / seconds * 100) / 100.0);
        }
        json.addProperty("latency_hdr", encodeHistogram(latencyMicros));
        json.addProperty("server_model", config.serverModel().cliName());
        json.addProperty("client_mode", config.clientMode().cliName());
        json.addProperty("client_thread_kind", config.clientThreadKind().cliName());
        if (config.selectorThreads() > 0) {
            json.addProperty("selector_threads", config.selectorThreads());
        }
        if (!config.shards().isEmpty()) {
            json.addProperty("shards", config.shards().size()); // servers the keys were spread over
            if (config.slots() != null) {
                json.addProperty("cluster", true); // placed by the slot map of --cluster
                if (!config.libraryClient()) { // the library follows MOVED out of sight
                    json.addProperty("redirects", stats.getRedirects());
                }
            }
        }
        if (config.clientMode() == ClientMode.PER_OP) {
            json.addProperty(
                    "close_order",
                    config.closeOrder()
                            .name()
                            .toLowerCase(java.util.Locale.ROOT)
                            .replace('_', '-'));
        }
        if (config.clientMode() == ClientMode.PIPELINED) {
            json.addProperty("pipeline", config.pipeline());
        }
        if (config.clientMode() == ClientMode.BATCHED) {
            json.addProperty("batch", config.batch());
        }
        if (config.keyed() != null) {
            addKeyed(json, config.keyed());
        }
        if (log != null) {
            log.addTo(json, seconds);
        }
        List<String> warnings = config.warnings();
        if (!warnings.isEmpty()) {
            JsonArray array = new JsonArray();
            warnings.forEach(array::add);
            json.add("warnings", array);
        }
        return json;
    }

    /**
     * A keyed run's settings and counts: the flags that made it (records, key_dist, zipf_theta,
     * hotspot_fraction, hotspot_ops_fraction, insert_frac, workload) and the two operations the
     * seed has no counter for. Left out of seed-style runs, whose JSON stays as it was.
     */
    private void addKeyed(JsonObject json, KeyedWorkload keyed) {
        json.addProperty("insert", stats.getInsert());
        json.addProperty("read_modify_write", stats.getReadModifyWrite());
        json.addProperty("workload", keyed.workload());
        json.addProperty("records", keyed.records());
        json.addProperty("key_dist", keyed.distribution().name());
        json.addProperty("zipf_theta", keyed.distribution().zipfTheta());
        json.addProperty("hotspot_fraction", keyed.distribution().hotspotFraction());
        json.addProperty("hotspot_ops_fraction", keyed.distribution().hotspotOpsFraction());
        json.addProperty("read_frac", keyed.mix().read());
        json.addProperty("update_frac", keyed.mix().update());
        json.addProperty("insert_frac", keyed.mix().insert());
        json.addProperty("rmw_frac", keyed.mix().readModifyWrite());
        json.addProperty("load", config.connectTo() == null ? "direct" : "v2-batched");
    }
}
