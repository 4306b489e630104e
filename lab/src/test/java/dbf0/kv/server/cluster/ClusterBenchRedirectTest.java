package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench --cluster} follows MOVED. Node 0's first 500 slots move to node 1, told to nodes 0
 * and 1 only, so node 2 still hands out the old map. A bench that learns its map from node 2 sends
 * keys of those slots to node 0, is answered MOVED, learns the map again from node 0 and resends:
 * every operation completes, none is an error, and the redirects are counted.
 */
@Timeout(60)
class ClusterBenchRedirectTest {

    private static final int MOVED_SLOTS = 500;

    @Tag("slow") // timed benchmark runs of about 1 s each
    @ParameterizedTest
    @ValueSource(
            strings = {
                "--client-mode persistent",
                "--client-mode pipelined --pipeline 8",
                "--client-mode batched --batch 50 --pipeline 2"
            })
    void benchFollowsMovedFromAStaleMap(String flags) throws Exception {
        try (LocalCluster cluster = new LocalCluster(3)) {
            List<String> ids = ClusterMigrationTest.ids(cluster);
            for (int slot = 0; slot < MOVED_SLOTS; slot++) { // node 0's: it starts at slot 0
                for (int node : new int[] {1, 0}) {
                    assertThat(
                                    ClusterMigrationTest.call(
                                            cluster,
                                            node,
                                            "CLUSTER",
                                            "SETSLOT",
                                            "" + slot,
                                            "NODE",
                                            ids.get(1)))
                            .isEqualTo("+OK\r\n");
                }
            }
            JsonObject json = ClusterBenchmarkTest.bench(cluster.port(2), flags);
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("set").getAsLong()).isPositive();
            assertThat(json.get("get").getAsLong()).isPositive();
            assertThat(json.get("redirects").getAsLong()).isPositive();
            long moved = 0;
            for (int slot = 0; slot < MOVED_SLOTS; slot++) {
                String count =
                        ClusterMigrationTest.call(
                                cluster, 1, "CLUSTER", "COUNTKEYSINSLOT", "" + slot);
                moved += Long.parseLong(count.substring(1, count.length() - 2));
            }
            assertThat(moved).as("keys written to the moved slots' new owner").isPositive();
        }
    }
}
