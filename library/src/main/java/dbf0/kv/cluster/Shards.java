package dbf0.kv.cluster;

import java.util.List;
import java.util.stream.IntStream;

/**
 * How a cluster's nodes group into shards: {@code --cluster-replicas R} makes each run of R+1
 * nodes, in the order of {@code --cluster-nodes}, one shard, as {@code redis-cli --cluster create
 * --cluster-replicas R} groups a master with its replicas. With 6 nodes and R=2, nodes 0-2 are
 * shard 0 and nodes 3-5 shard 1. Every node of a shard holds the same keys: one copy each.
 *
 * <p>A shard's slots are fixed by its place (the 16,384 split evenly over the shards); which of its
 * members serves them as master is not: that is whoever leads the shard's Raft group now. A {@link
 * SlotMap} over shards names each slot's owner by the shard's first member, which stands for the
 * shard.
 *
 * @param nodes how many nodes the cluster has
 * @param replicas R: copies beside the master's, so each shard has R+1 members
 */
public record Shards(int nodes, int replicas) {

    /** No replication: each node is a shard of its own, as a cluster without the flag is. */
    public static Shards none(int nodes) {
        return new Shards(nodes, 0);
    }

    /**
     * Checks that the nodes split into whole shards.
     *
     * @throws IllegalArgumentException if {@code nodes} is not a multiple of R+1, or R is negative
     */
    public Shards {
        if (replicas < 0) {
            throw new IllegalArgumentException(
                    "--cluster-replicas must be 0 or more, got " + replicas);
        }
        if (nodes < 1 || nodes % (replicas + 1) != 0) {
            throw new IllegalArgumentException(
                    nodes
                            + " nodes do not split into shards of "
                            + (replicas + 1)
                            + " (a master and "
                            + replicas
                            + (replicas == 1 ? " replica" : " replicas")
                            + "): list a multiple of "
                            + (replicas + 1)
                            + " nodes");
        }
    }

    /** How many members each shard has: R+1. */
    public int size() {
        return replicas + 1;
    }

    /** How many shards there are. */
    public int count() {
        return nodes / size();
    }

    /** The shard node {@code node} belongs to. */
    public int shardOf(int node) {
        return node / size();
    }

    /** The shard's first member: the node that stands for it in a {@link SlotMap}. */
    public int first(int shard) {
        return shard * size();
    }

    /** The shard's members' node indexes, in list order. */
    public List<Integer> members(int shard) {
        return IntStream.range(first(shard), first(shard) + size()).boxed().toList();
    }

    /** True if the nodes are replicated: each shard has replicas. */
    public boolean replicated() {
        return replicas > 0;
    }
}
