package dbf0.kv.server.cluster;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.NodesFile;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.server.resp.KeyRouter;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.storage.CheckpointedStore;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part of a cluster: which node it is, the {@link SlotMap} as this node knows it, the
 * store, and the locks that make moving a slot safe. Without {@code --cluster-nodes} a server has
 * none of this and pays nothing for it.
 *
 * <p>The map is replaced whole on a change (SETSLOT, a peer's id learnt) and written to the data
 * directory's {@code nodes} file before the change is answered, so a restarted node comes back with
 * its id and its slots.
 *
 * <p>The locks: a command on keys takes the read lock of its slot's stripe for as long as it checks
 * where the keys are and submits its writes; MIGRATE and SETSLOT take the write lock. So no write
 * can slip in between MIGRATE reading a key and deleting it (it would be lost), nor create a key in
 * a slot after the node handed the slot over. {@value #STRIPES} stripes, by slot: writers of other
 * slots do not wait for a migration. A command on keys of several stripes (a v2 BATCH; RESP refuses
 * those with CROSSSLOT) takes one lock of its own instead, whose write side MIGRATE and SETSLOT
 * take too: it waits for every migration step, and pays one lock, not one per stripe.
 */
public final class ClusterState implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterState.class);

    /**
     * Lock stripes, one bit each of a {@code long} ({@link #readLockOfStripes}); by a slot's low
     * bits.
     */
    static final int STRIPES = Long.SIZE;

    private final int myself;
    private final Path dataDir;
    private final Store base;
    private final Shards shards;

    /** How this node's shard keeps copies, or null for a cluster without replicas. */
    private final Replication replication;

    private final Store store;
    private final SlotIndex index;
    private final StampedLock[] locks = new StampedLock[STRIPES];

    /** Held, read side, by a command on keys of several stripes ({@link #readLockOfStripes}). */
    private final StampedLock manyStripes = new StampedLock();

    private final SlotRouting routing;
    private final PeerIds peerIds;
    private final PeerRoles peerRoles;
    private volatile SlotMap map;

    /** Starts the replication engine, at once or once the peers have answered; null without. */
    private final EngineStart engine;

    private ClusterState(
            int myself,
            SlotMap map,
            Shards shards,
            Path dataDir,
            Store store,
            Replication replication)
            throws IOException {
        this.myself = myself;
        this.map = map;
        this.shards = shards;
        this.dataDir = dataDir;
        this.base = store;
        this.replication = replication;
        this.index = new SlotIndex(store);
        Store indexed =
                store instanceof CheckpointedStore checkpointed
                        ? new IndexedCheckpointedStore(checkpointed, index)
                        : new IndexedStore(store, index);
        long started = System.nanoTime();
        long keys = index.build();
        LOG.info(
                "indexed the slots of {} keys in {} ms (one walk of the store)",
                String.format("%,d", keys),
                (System.nanoTime() - started) / 1_000_000);
        // Replicated, every member applies its shard's log through the index, so that a member
        // that becomes the leader has it up to date; sessions write through the engine's store.
        this.store = replication == null ? indexed : replication.attach(indexed);
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new StampedLock();
        }
        this.routing = new SlotRouting(this);
        this.peerIds = new PeerIds(this);
        this.peerRoles = replication == null ? null : new PeerRoles(this);
        this.engine = replication == null ? null : new EngineStart(replication);
    }

    /**
     * This node's state: read from {@code dataDir}'s nodes file if it has one, else the slots split
     * evenly over {@code listed} and a new random id for this node (saved at once when there is a
     * data dir). Starts asking the peers their ids. A replicated node whose engine has run here
     * before starts it at once; one whose engine never ran here starts it only once its peers have
     * said they do not know it by another id ({@link MemberCheck}).
     *
     * @param listed the {@code --cluster-nodes} list, in its order
     * @param bind the address this server listens on: it picks this node out of the list
     * @param dataDir where the nodes file lives, or null to keep nothing
     * @param store the keys; sessions must write through {@link #store()}, which indexes them
     * @throws IllegalArgumentException if the bind address matches no entry or several, or the
     *     nodes file lists other addresses than {@code listed}
     * @throws IOException if the nodes file cannot be read or written
     */
    public static ClusterState start(
            List<ClusterNode> listed, InetSocketAddress bind, Path dataDir, Store store)
            throws IOException {
        return start(listed, Shards.none(listed.size()), bind, dataDir, store, null);
    }

    /**
     * As above, for nodes grouped into shards whose members keep copies of each other's keys: the
     * slots are split over the shards, and {@code replication} takes this node's writes to its
     * shard's log (see {@link Replication}).
     *
     * @param shards how {@code listed} groups into shards
     * @param replication the shard's consensus engine, or null when {@code shards} has no replicas
     * @throws IllegalArgumentException as above, or if the nodes file was written for another
     *     grouping
     * @throws IOException as above, or if the engine cannot start
     */
    public static ClusterState start(
            List<ClusterNode> listed,
            Shards shards,
            InetSocketAddress bind,
            Path dataDir,
            Store store,
            Replication replication)
            throws IOException {
        if (shards.replicated() != (replication != null)) {
            throw new IllegalArgumentException(
                    shards.replicated()
                            ? "shards with replicas need a replication engine"
                            : "a replication engine needs shards with replicas");
        }
        int me = findSelf(listed, bind);
        NodesFile.Saved saved = dataDir == null ? null : NodesFile.read(dataDir);
        SlotMap split = SlotMap.evenSplit(listed, shards);
        SlotMap map;
        if (saved != null) {
            List<String> was = saved.map().nodes().stream().map(ClusterNode::address).toList();
            List<String> now = listed.stream().map(ClusterNode::address).toList();
            if (!was.equals(now) || saved.myself() != me) {
                throw new IllegalArgumentException(
                        "the data dir's nodes file is for the cluster "
                                + was
                                + " with this node at "
                                + was.get(saved.myself())
                                + "; --cluster-nodes says "
                                + now
                                + " and --bind/--port say "
                                + now.get(me)
                                + ". Use the same list, or another data dir");
            }
            if (shards.replicated() && !sameOwners(saved.map(), split)) {
                throw new IllegalArgumentException(
                        "the data dir's nodes file splits the slots otherwise than "
                                + shards.count()
                                + " shards of "
                                + shards.size()
                                + " nodes: was it written with another --cluster-replicas?");
            }
            map = saved.map();
        } else {
            map = split.withNode(me, listed.get(me).withId(ClusterNode.randomId()));
            if (dataDir != null) {
                if (!Files.isDirectory(dataDir)) {
                    Files.createDirectory(dataDir); // its last part only: never a missing parent
                }
                NodesFile.write(dataDir, me, map);
            }
        }
        ClusterState state = new ClusterState(me, map, shards, dataDir, store, replication);
        state.peerIds.start();
        if (state.peerRoles != null) {
            state.peerRoles.start();
            try {
                state.engine.begin(state);
            } catch (IOException | RuntimeException e) {
                state.close();
                throw e;
            }
        }
        return state;
    }

    /**
     * Completes, with the reason, if this node must stop because its replication engine may not
     * start ({@link EngineStart}). Never completes otherwise.
     *
     * @return the reason, once there is one
     */
    public CompletableFuture<Throwable> failure() {
        return engine == null ? new CompletableFuture<>() : engine.failure();
    }

    /** The data dir, or null. */
    Path dataDir() {
        return dataDir;
    }

    private static boolean sameOwners(SlotMap a, SlotMap b) {
        for (int slot = 0; slot < dbf0.kv.cluster.HashSlots.SLOTS; slot++) {
            if (a.owner(slot) != b.owner(slot)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The index of the entry of {@code listed} that {@code bind} is.
     *
     * @throws IllegalArgumentException if it is none of them, or more than one
     */
    public static int findSelf(List<ClusterNode> listed, InetSocketAddress bind) {
        List<Integer> matches = new ArrayList<>();
        for (int i = 0; i < listed.size(); i++) {
            ClusterNode node = listed.get(i);
            if (node.port() == bind.getPort() && sameHost(node.host(), bind)) {
                matches.add(i);
            }
        }
        if (matches.size() != 1) {
            throw new IllegalArgumentException(
                    "--bind/--port "
                            + bind.getHostString()
                            + ":"
                            + bind.getPort()
                            + (matches.isEmpty() ? " is none" : " is more than one")
                            + " of the --cluster-nodes "
                            + listed.stream().map(ClusterNode::address).toList());
        }
        return matches.get(0);
    }

    private static boolean sameHost(String host, InetSocketAddress bind) {
        if (bind.getAddress() == null || bind.getAddress().isAnyLocalAddress()) {
            return true; // 0.0.0.0 listens on every address: the port decides
        }
        if (host.equalsIgnoreCase(bind.getHostString())) {
            return true;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (a.equals(bind.getAddress())) {
                    return true;
                }
            }
        } catch (UnknownHostException e) {
            return false;
        }
        return false;
    }

    /** The map as this node knows it now. */
    public SlotMap map() {
        return map;
    }

    /** This node's index in the map. */
    public int myself() {
        return myself;
    }

    /** This node. */
    public ClusterNode me() {
        return map.nodes().get(myself);
    }

    /** How the nodes group into shards; each its own shard without replicas. */
    public Shards shards() {
        return shards;
    }

    /** The shard's consensus engine, or null for a cluster without replicas. */
    public Replication replication() {
        return replication;
    }

    /** True if this node's shard keeps copies on several nodes. */
    public boolean replicated() {
        return replication != null;
    }

    /**
     * The node that leads {@code shard} as far as this node knows: for its own shard, what its
     * engine says; for another, what that shard's members last told ({@link PeerRoles}). Without
     * replicas, the shard's one node.
     *
     * @return a node index, or {@link SlotMap#NONE} if no leader is known
     */
    public int leaderOf(int shard) {
        if (replication == null) {
            return shard;
        }
        if (shard == shards.shardOf(myself)) {
            ShardView view = replication.view();
            // an engine not running yet (asking its peers first) knows no leader: its peers do
            return view.role() == ShardView.Role.DOWN ? peerRoles.leaderOf(shard) : view.leader();
        }
        return peerRoles.leaderOf(shard);
    }

    /**
     * INFO's replication section of a replicated node ({@link ReplicationInfo}), or null for a node
     * without replicas, which is a master with none.
     */
    public String replicationInfo() {
        return replication == null ? null : ReplicationInfo.render(this);
    }

    /** What this node last heard from node {@code index}, or null (itself, or not heard yet). */
    PeerRoles.Heard heard(int index) {
        return peerRoles == null ? null : peerRoles.heard(index);
    }

    /** Routes each keyed command to its slot's node; the server's {@code KeyRouter}. */
    public KeyRouter router() {
        return routing;
    }

    /** The commands only a cluster node answers. */
    public List<RespCommand> commands() {
        List<RespCommand> commands =
                List.of(
                        new ClusterCommand(this),
                        new Asking(),
                        new ReadOnly(),
                        new Migrate(this),
                        new Restore(this));
        if (replication == null) {
            return commands;
        }
        List<RespCommand> all = new ArrayList<>(commands);
        all.add(new DbfRole(this));
        all.add(new Role(this));
        all.add(new Wait(this));
        return all;
    }

    /**
     * The store every session, MIGRATE and DBF0-RESTORE must write through: the server's store with
     * the {@link SlotIndex} kept up to date by each write.
     */
    public Store store() {
        return store;
    }

    /**
     * Changes the map and saves it; a change that leaves the map as it was writes nothing.
     *
     * @throws UncheckedIOException if the nodes file cannot be written (the change is not made)
     */
    synchronized void update(UnaryOperator<SlotMap> change) {
        SlotMap next = change.apply(map);
        if (next.equals(map)) {
            return;
        }
        if (dataDir != null) {
            try {
                NodesFile.write(dataDir, myself, next);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        map = next;
    }

    /**
     * The bit of {@code slot}'s stripe, to gather a request's stripes into one mask.
     *
     * @param slot a hash slot
     * @return a mask with one bit set
     */
    public static long stripeBit(int slot) {
        return 1L << (slot % STRIPES);
    }

    /**
     * What a command on keys must hold while it checks where they are and runs: the read lock of
     * their stripe, or, for keys of several stripes (a v2 BATCH), the read lock of {@link
     * #manyStripes}, one compare-and-set instead of one per stripe.
     *
     * @param mask the keys' stripes (at least one), as {@link #stripeBit} gives them
     * @return the lock to take
     */
    public Lock readLockOfStripes(long mask) {
        return Long.bitCount(mask) > 1
                ? manyStripes.asReadLock()
                : locks[Long.numberOfTrailingZeros(mask)].asReadLock();
    }

    /**
     * The write side of the lock that commands on keys of several stripes take: MIGRATE and SETSLOT
     * take it after their stripes' write locks, so that such a command waits for them too.
     */
    Lock manyStripesWriteLock() {
        return manyStripes.asWriteLock();
    }

    /**
     * The read lock of {@code slot}'s stripe. A StampedLock: no per-thread hold counts to keep, so
     * an uncontended read lock is one compare-and-set; nothing here takes a lock twice.
     */
    Lock readLock(int slot) {
        return locks[slot % STRIPES].asReadLock();
    }

    /** The write lock of {@code slot}'s stripe. */
    Lock writeLock(int slot) {
        return locks[slot % STRIPES].asWriteLock();
    }

    /**
     * The keys of {@code slot}, at most {@code count}, from the {@link SlotIndex}: O(keys of the
     * slot), not of the store.
     */
    List<byte[]> keysInSlot(int slot, int count) {
        applySubmittedWrites(); // so that the store holds them when the candidates are checked
        return index.keys(slot, count);
    }

    /** How many keys {@code slot} holds, as {@link #keysInSlot} finds them. */
    long countKeys(int slot) {
        applySubmittedWrites();
        return index.count(slot);
    }

    /**
     * Makes every write submitted so far visible in the store, whichever connection submitted it. A
     * write-ahead log applies a write to its map only when its batch is flushed, and a flush on an
     * event loop takes that loop's batch alone; any other thread's flush takes every loop's, so it
     * is run on a virtual thread ({@link Store#awaitSubmitted}, which also waits out a log's writer
     * thread, where writes from connection threads go under always). MIGRATE, SETSLOT NODE and the
     * checks of a migrating slot call it after taking their locks: no write submitted before can
     * then be missed, and none can be submitted meanwhile. A map store has done every write
     * already.
     */
    void applySubmittedWrites() {
        if (base instanceof MapStore) {
            return;
        }
        try {
            Thread.ofVirtual().start(store::awaitSubmitted).join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the store holds {@code key}. */
    boolean contains(byte[] key) {
        return store.contains(new ByteArrayWrapper(key));
    }

    /** Stops asking the peers for their ids and roles, and stops the replication engine. */
    @Override
    public void close() {
        if (engine != null) {
            engine.close(); // before the engine itself: a check that passes now starts nothing
        }
        peerIds.close();
        if (peerRoles != null) {
            peerRoles.close();
        }
        if (replication != null) {
            replication.close();
        }
    }
}
