package dbf0.kv.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared keys are spread evenly over the shards, each where the slot map puts it. */
class KeyPlanTest {

    private static final List<ClusterNode> NODES =
            ClusterNode.parseList(
                    "127.0.0.1:7400,127.0.0.1:7401,127.0.0.1:7402,"
                            + "127.0.0.1:7403,127.0.0.1:7404,127.0.0.1:7405");

    @Test
    void sevenKeysOverTwoShardsAreFourAndThreeEachOnItsOwnShard() {
        Shards shards = new Shards(6, 2);
        KeyPlan plan = KeyPlan.spread(NODES, shards, 7);
        int[] per = new int[2];
        SlotMap map = SlotMap.evenSplit(NODES, shards);
        for (int k = 0; k < plan.size(); k++) {
            per[plan.shard(k)]++;
            assertThat(shards.shardOf(map.owner(HashSlots.slot(plan.key(k)))))
                    .isEqualTo(plan.shard(k));
        }
        assertThat(per).containsExactly(4, 3);
        assertThat(plan.members(1)).containsExactly(3, 4, 5);
        assertThat(Arrays.stream(per).sum()).isEqualTo(7);
    }

    @Test
    void fewerKeysThanShardsIsRefused() {
        assertThatThrownBy(() -> KeyPlan.spread(NODES, new Shards(6, 0), 5))
                .hasMessageContaining("--keys must be at least the number of shards, 6");
    }
}
