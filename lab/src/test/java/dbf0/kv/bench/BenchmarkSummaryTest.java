package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.client.KeyValueClientStats;
import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** bench's line for people: throughput, latencies in milliseconds, errors, in words. */
class BenchmarkSummaryTest {

    private static BenchmarkConfig config() {
        return BenchmarkConfig.builder()
                .serverThreads(1)
                .clientThreads(1)
                .mapType("concurrent")
                .keyLength(16)
                .valueLength(64)
                .setFraction(0.5)
                .duration(Duration.ofSeconds(2))
                .build();
    }

    @Test
    void oneOperationAndOneErrorAreSingular() {
        KeyValueClientStats stats = new KeyValueClientStats();
        stats.countSet();
        Histogram latency = new Histogram(3);
        latency.recordValue(250);
        assertThat(new BenchmarkResult(stats, 4.0, 1, latency, config()).summary())
                .isEqualTo(
                        "0 ops/s over 4.0 s (1 op); latency p50 0.250 ms, p99 0.250 ms, max 0.250"
                                + " ms; 1 error");
    }

    @Test
    void manyAreCountedWithSeparatorsAndLatenciesInMilliseconds() {
        KeyValueClientStats stats = new KeyValueClientStats();
        Histogram latency = new Histogram(3);
        for (int i = 0; i < 3000; i++) {
            stats.countGet(true, false);
            latency.recordValue(i < 2940 ? 80 : 12_000);
        }
        assertThat(new BenchmarkResult(stats, 1.0, 0, latency, config()).summary())
                .isEqualTo(
                        "3,000 ops/s over 1.0 s (3,000 ops); latency p50 0.080 ms, p99 12.007 ms,"
                                + " max 12.007 ms; 0 errors");
    }
}
