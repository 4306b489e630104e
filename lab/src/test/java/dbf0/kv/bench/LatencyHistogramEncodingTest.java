package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The bench JSON's latency_hdr field decodes to the very histogram the percentiles came from. */
class LatencyHistogramEncodingTest {

    @Test
    void encodedHistogramDecodesToTheSameCountsAndPercentiles() throws Exception {
        Histogram histogram = new Histogram(3);
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            histogram.recordValue(
                    1
                            + (long) Math.abs(random.nextGaussian() * 500)
                            + (i % 1000 == 0 ? 250_000 : 0));
        }
        String encoded = BenchmarkResult.encodeHistogram(histogram);
        Histogram decoded =
                Histogram.decodeFromCompressedByteBuffer(
                        ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
        assertThat(decoded.getTotalCount()).isEqualTo(100_000);
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            assertThat(decoded.getValueAtPercentile(p))
                    .as("p%s", p)
                    .isEqualTo(histogram.getValueAtPercentile(p));
        }
        assertThat(encoded.length()).isLessThan(20_000); // compressed: a results line stays small
    }
}
