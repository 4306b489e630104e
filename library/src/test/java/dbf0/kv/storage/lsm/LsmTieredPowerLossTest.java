package dbf0.kv.storage.lsm;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LsmPowerLossTest}'s thousands of cuts on a store that compacts tiered. A class of its own
 * so that the build's two test JVMs share the power cuts: one class runs on one JVM, and this would
 * otherwise add half a minute to the leveled cuts' minute on the same one.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LsmTieredPowerLossTest {

    @Test
    @Tag("slow") // about 25 s
    void thousandsOfCutsTiered() throws Exception {
        LsmPowerLossTest.run(1500, 13, CompactionStyle.TIERED);
    }
}
