package dbf0.kv.storage.lsm;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LsmPowerLossTest}'s cuts on a store that compacts tiered: 150 in every build, thousands in
 * {@code scripts/proofs.sh} (tag {@code proof}). A class of its own so that two test JVMs share the
 * power cuts: one class runs on one JVM.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LsmTieredPowerLossTest {

    @Test
    void noAcknowledgedWriteIsLostAcrossPowerCutsTiered() throws Exception {
        LsmPowerLossTest.run(
                Integer.getInteger("dbf0.lsm.powerloss.cycles", 300) / 2,
                14,
                CompactionStyle.TIERED);
    }

    @Test
    @Tag("slow") // about 25 s
    @Tag("proof") // scripts/proofs.sh and CI run it; ./test.sh runs the 150 cuts above
    void thousandsOfCutsTiered() throws Exception {
        LsmPowerLossTest.run(1500, 13, CompactionStyle.TIERED);
    }
}
