package dbf0.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void acceptsIsoSecondsAndUnits() {
        assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("pt1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2.5")).isEqualTo(Duration.ofMillis(2500));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void rejectsGarbageAndNonPositive() {
        assertThatThrownBy(() -> Durations.parse("ten")).hasMessageContaining("PT10S");
        assertThatThrownBy(() -> Durations.parsePositive("0")).hasMessageContaining("positive");
        assertThatThrownBy(() -> Durations.parsePositive("PT-1S")).hasMessageContaining("positive");
    }
}
