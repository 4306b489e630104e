package dbf0.kv.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyedWorkloadTest {

    private static final int SAMPLES = 100_000;

    @Test
    void keysAreDistinctFixedLengthAndBigEndian() {
        KeyedWorkload w =
                new KeyedWorkload(
                        null, 300, KeyDistribution.of("uniform"), OperationMix.of(0.5, 0), 2, 4);
        assertThat(w.key(0x0102)).isEqualTo(ByteArrayWrapper.of(0x01, 0x02));
        Set<ByteArrayWrapper> keys = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            keys.add(w.key(i));
        }
        assertThat(keys).hasSize(300);
        assertThat(w.value(w.key(0x0102))).isEqualTo(ByteArrayWrapper.of(0xfe, 0xfd, 0xfe, 0xfd));
        assertThatThrownBy(
                        () ->
                                new KeyedWorkload(
                                        null,
                                        70_000,
                                        KeyDistribution.of("uniform"),
                                        OperationMix.of(0.5, 0),
                                        2,
                                        4))
                .hasMessageContaining("65536");
    }

    @Test
    void ycsbMixesAreThePublishedOnes() {
        assertThat(YcsbWorkload.A.mix()).isEqualTo(new OperationMix(0.5, 0.5, 0, 0));
        assertThat(YcsbWorkload.B.mix()).isEqualTo(new OperationMix(0.95, 0.05, 0, 0));
        assertThat(YcsbWorkload.C.mix()).isEqualTo(new OperationMix(1, 0, 0, 0));
        assertThat(YcsbWorkload.D.mix()).isEqualTo(new OperationMix(0.95, 0, 0.05, 0));
        assertThat(YcsbWorkload.D.keyDistribution()).isEqualTo("latest");
        assertThat(YcsbWorkload.F.mix()).isEqualTo(new OperationMix(0.5, 0, 0, 0.5));
        assertThat(YcsbWorkload.parse("a")).isEqualTo(YcsbWorkload.A);
        assertThatThrownBy(() -> YcsbWorkload.parse("E")).hasMessageContaining("range scans");
    }

    @Test
    void generatorDrawsTheMixAndInsertsPastTheRecords() {
        KeySpace space = new KeySpace(1000);
        KeyedWorkload w =
                new KeyedWorkload(
                        "D",
                        1000,
                        KeyDistribution.of("latest"),
                        new OperationMix(0.7, 0.1, 0.1, 0.1),
                        8,
                        16);
        KeyedWorkload.Generator g = w.generator(space, new Random(9));
        Map<OperationKind, Integer> counts = new EnumMap<>(OperationKind.class);
        for (int i = 0; i < SAMPLES; i++) {
            KeyedWorkload.Op op = g.next();
            counts.merge(op.operation(), 1, Integer::sum);
            assertThat(op.value() == null).isEqualTo(op.operation() == OperationKind.READ);
            if (op.value() != null) {
                assertThat(op.value()).isEqualTo(w.value(op.key()));
            }
        }
        double tolerance = 5 * Math.sqrt(0.1 * 0.9 / SAMPLES);
        assertThat(counts.get(OperationKind.INSERT) / (double) SAMPLES)
                .isBetween(0.1 - tolerance, 0.1 + tolerance);
        assertThat(counts.get(OperationKind.READ_MODIFY_WRITE) / (double) SAMPLES)
                .isBetween(0.1 - tolerance, 0.1 + tolerance);
        assertThat(space.count()).isEqualTo(1000L + counts.get(OperationKind.INSERT));
    }

    @Test
    void mixOfSetFracAndInserts() {
        OperationMix mix = OperationMix.of(0.3, 0.2);
        // 1 - 0.3 - 0.2 in doubles
        assertThat(mix.read()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(mix.update()).isEqualTo(0.3);
        assertThat(mix.insert()).isEqualTo(0.2);
        assertThatThrownBy(() -> OperationMix.of(0.9, 0.2)).hasMessageContaining("at most 1");
        assertThatThrownBy(() -> new OperationMix(0.5, 0.4, 0, 0)).hasMessageContaining("sum to 1");
        OperationMix readOnly = new OperationMix(1, 0, 0, 0);
        Random random = new Random(10);
        for (int i = 0; i < 10_000; i++) {
            assertThat(readOnly.pick(random)).isEqualTo(OperationKind.READ);
        }
    }
}
