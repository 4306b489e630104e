package dbf0.kv.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which node owns each of the 16,384 slots, and which slots are on the move: the whole of a
 * cluster's configuration. Immutable: a change makes a new map (three arrays of 16,384 shorts, 96
 * KiB, copied only on the rare SETSLOT), so that a request reads a consistent map with one volatile
 * read and no lock.
 *
 * <p>Nodes are named by their index in {@link #nodes()}, the order of {@code --cluster-nodes}. A
 * slot that is migrating names the node it goes to; one that is importing names the node it comes
 * from (Redis's MIGRATING and IMPORTING states). {@link #NONE} means neither.
 */
public final class SlotMap {

    /** Nodes at most: Redis's advice for one cluster, and what a short index holds easily. */
    public static final int MAX_NODES = 1000;

    /** No node: a slot that is not migrating (or importing), or an unassigned one. */
    public static final int NONE = -1;

    /** A run of slots {@code first..last} (both included) with one owner. */
    public record Range(int first, int last) {}

    private final List<ClusterNode> nodes;
    private final short[] owner;
    private final short[] migrating;
    private final short[] importing;

    private SlotMap(List<ClusterNode> nodes, short[] owner, short[] migrating, short[] importing) {
        this.nodes = List.copyOf(nodes);
        this.owner = owner;
        this.migrating = migrating;
        this.importing = importing;
    }

    /**
     * The 16,384 slots split evenly over {@code nodes} in their order: node i of n owns slots
     * {@code i*16384/n} to {@code (i+1)*16384/n - 1}, so 3 nodes get 0-5460, 5461-10921 and
     * 10922-16383 as redis-cli's {@code --cluster create} would give them.
     *
     * @throws IllegalArgumentException for no nodes or more than {@link #MAX_NODES}
     */
    public static SlotMap evenSplit(List<ClusterNode> nodes) {
        return evenSplit(nodes, Shards.none(nodes.size()));
    }

    /**
     * The 16,384 slots split evenly over the shards, in their order, as over nodes above; each
     * shard's slots are owned, in this map, by its first member ({@link Shards#first}).
     *
     * @throws IllegalArgumentException for no nodes, more than {@link #MAX_NODES}, or shards that
     *     are not of these nodes
     */
    public static SlotMap evenSplit(List<ClusterNode> nodes, Shards shards) {
        int n = nodes.size();
        if (n < 1 || n > MAX_NODES) {
            throw new IllegalArgumentException("1 to " + MAX_NODES + " nodes, got " + n);
        }
        if (shards.nodes() != n) {
            throw new IllegalArgumentException(shards + " are not shards of " + n + " nodes");
        }
        short[] owner = new short[HashSlots.SLOTS];
        int count = shards.count();
        for (int i = 0; i < count; i++) {
            int first = i * HashSlots.SLOTS / count;
            int end = (i + 1) * HashSlots.SLOTS / count;
            Arrays.fill(owner, first, end, (short) shards.first(i));
        }
        return new SlotMap(nodes, owner, none(), none());
    }

    /**
     * A map from its parts, as {@link NodesFile} reads it.
     *
     * @param owner per slot, the owner's index or {@link #NONE}
     * @param migrating per slot, the target's index or {@link #NONE}
     * @param importing per slot, the source's index or {@link #NONE}
     * @throws IllegalArgumentException if an array is not 16,384 long or names no node
     */
    public static SlotMap of(
            List<ClusterNode> nodes, short[] owner, short[] migrating, short[] importing) {
        for (short[] a : List.of(owner, migrating, importing)) {
            if (a.length != HashSlots.SLOTS) {
                throw new IllegalArgumentException("a slot array holds 16384 entries");
            }
            for (short s : a) {
                if (s < NONE || s >= nodes.size()) {
                    throw new IllegalArgumentException("node index " + s + " names no node");
                }
            }
        }
        return new SlotMap(nodes, owner.clone(), migrating.clone(), importing.clone());
    }

    private static short[] none() {
        short[] a = new short[HashSlots.SLOTS];
        Arrays.fill(a, (short) NONE);
        return a;
    }

    /** The nodes, in the order of {@code --cluster-nodes}. */
    public List<ClusterNode> nodes() {
        return nodes;
    }

    /** The index of the node with this id, or {@link #NONE}. */
    public int indexOf(String id) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).id().equals(id)) {
                return i;
            }
        }
        return NONE;
    }

    /** The index of the slot's owner, or {@link #NONE} if no node serves it. */
    public int owner(int slot) {
        return owner[slot];
    }

    /** The node the slot is migrating to, or {@link #NONE}. */
    public int migrating(int slot) {
        return migrating[slot];
    }

    /** The node the slot is being imported from, or {@link #NONE}. */
    public int importing(int slot) {
        return importing[slot];
    }

    /** How many slots no node owns. */
    public int unassigned() {
        int count = 0;
        for (short s : owner) {
            if (s == NONE) {
                count++;
            }
        }
        return count;
    }

    /** The runs of slots that node {@code index} owns, in slot order. */
    public List<Range> ranges(int index) {
        List<Range> ranges = new ArrayList<>();
        int first = -1;
        for (int slot = 0; slot <= HashSlots.SLOTS; slot++) {
            boolean mine = slot < HashSlots.SLOTS && owner[slot] == index;
            if (mine && first < 0) {
                first = slot;
            } else if (!mine && first >= 0) {
                ranges.add(new Range(first, slot - 1));
                first = -1;
            }
        }
        return ranges;
    }

    /** This map with {@code slot} owned by node {@code index} (or by none). */
    public SlotMap withOwner(int slot, int index) {
        short[] o = owner.clone();
        o[slot] = checked(index);
        return new SlotMap(nodes, o, migrating, importing);
    }

    /** This map with {@code slot} migrating to node {@code index}, or no longer when NONE. */
    public SlotMap withMigrating(int slot, int index) {
        short[] m = migrating.clone();
        m[slot] = checked(index);
        return new SlotMap(nodes, owner, m, importing);
    }

    /** This map with {@code slot} imported from node {@code index}, or no longer when NONE. */
    public SlotMap withImporting(int slot, int index) {
        short[] m = importing.clone();
        m[slot] = checked(index);
        return new SlotMap(nodes, owner, migrating, m);
    }

    /** This map with node {@code index} replaced (its id learnt or changed). */
    public SlotMap withNode(int index, ClusterNode node) {
        List<ClusterNode> n = new ArrayList<>(nodes);
        n.set(index, node);
        return new SlotMap(n, owner, migrating, importing);
    }

    private short checked(int index) {
        if (index < NONE || index >= nodes.size()) {
            throw new IllegalArgumentException("node index " + index + " names no node");
        }
        return (short) index;
    }

    /** True if both maps have the same nodes, owners and moving slots. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SlotMap m
                && nodes.equals(m.nodes)
                && Arrays.equals(owner, m.owner)
                && Arrays.equals(migrating, m.migrating)
                && Arrays.equals(importing, m.importing);
    }

    @Override
    public int hashCode() {
        return nodes.hashCode() * 31 + Arrays.hashCode(owner);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("SlotMap{");
        for (int i = 0; i < nodes.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(nodes.get(i).address()).append('=');
            s.append(ranges(i));
        }
        return s.append('}').toString();
    }
}
