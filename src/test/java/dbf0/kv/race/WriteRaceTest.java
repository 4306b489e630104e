package dbf0.kv.race;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WriteRaceTest {

  @ParameterizedTest
  @ValueSource(strings = {"hashtable", "concurrent"})
  @Timeout(60)
  void threadSafeMapsKeepEveryKey(String map) throws Exception {
    WriteRace.Result result = WriteRace.run(map, 4, 50_000, 30_000);
    assertThat(result.anomalous()).as("%s", result).isFalse();
    assertThat(result.size()).isEqualTo(200_000);
    assertThat(result.entriesIterated()).isEqualTo(200_000);
    assertThat(result.keysMissing()).isZero();
  }

  /** Probabilistic only towards detection: retries until HashMap shows a problem or time runs out. */
  @Test
  @Timeout(120)
  void hashMapGoesWrongUnderConcurrentWrites() throws Exception {
    long budget = System.nanoTime() + 90_000_000_000L;
    WriteRace.Result result;
    do {
      result = WriteRace.run("hashmap", 4, 100_000, 20_000);
    } while (!result.anomalous() && System.nanoTime() < budget);
    assertThat(result.anomalous()).as("%s", result).isTrue();
  }
}
