package dbf0.kv.nemesis;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys the nemesis's clients share, spread evenly over the shards: {@code k0}, {@code k1}, ...
 * in order, each taken while its shard has fewer than its share, so that a fault on any shard meets
 * writes. A key's shard is where its hash slot lies in the slot map every node computes from {@code
 * --cluster-nodes} and {@code --cluster-replicas}.
 */
final class KeyPlan {

    private final List<byte[]> keys;
    private final int[] shard;
    private final Shards shards;
    private final SlotMap map;

    private KeyPlan(List<byte[]> keys, int[] shard, Shards shards, SlotMap map) {
        this.keys = keys;
        this.shard = shard;
        this.shards = shards;
        this.map = map;
    }

    /** {@code count} keys, as even over the shards as whole numbers allow. */
    static KeyPlan spread(List<ClusterNode> nodes, Shards shards, int count) {
        if (count < shards.count()) {
            throw new IllegalArgumentException(
                    "--keys must be at least the number of shards, "
                            + shards.count()
                            + ", got "
                            + count);
        }
        SlotMap map = SlotMap.evenSplit(nodes, shards);
        int[] taken = new int[shards.count()];
        List<byte[]> keys = new ArrayList<>();
        List<Integer> where = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.US_ASCII);
            int s = shards.shardOf(map.owner(HashSlots.slot(key)));
            int share = count / shards.count() + (s < count % shards.count() ? 1 : 0);
            if (taken[s] < share) {
                taken[s]++;
                keys.add(key);
                where.add(s);
            }
        }
        return new KeyPlan(
                List.copyOf(keys),
                where.stream().mapToInt(Integer::intValue).toArray(),
                shards,
                map);
    }

    int size() {
        return keys.size();
    }

    byte[] key(int i) {
        return keys.get(i);
    }

    int shard(int i) {
        return shard[i];
    }

    /** The shard any key lies in. */
    int shardOf(byte[] key) {
        return shards.shardOf(map.owner(HashSlots.slot(key)));
    }

    /** The shard's members' node indexes, in list order. */
    List<Integer> members(int shard) {
        return shards.members(shard);
    }

    int shards() {
        return shards.count();
    }
}
