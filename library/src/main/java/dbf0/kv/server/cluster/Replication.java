package dbf0.kv.server.cluster;

import dbf0.kv.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a cluster node keeps copies of its shard: the hook through which a consensus engine (the
 * replication module's Raft, on Apache Ratis) takes over a node's writes. The library defines the
 * hook and routes commands by what it says; it carries no engine itself, so that a user who embeds
 * a plain server pays nothing for one.
 *
 * <p>The contract: {@link #attach} gets the node's own store and returns the store sessions must
 * write through, and {@link #start} starts the engine. A write on it completes once the shard's log
 * has it committed (a majority holds it) and this node has applied it; on a node that does not
 * lead, it fails with {@link dbf0.kv.storage.StoreRefusedException}. Every member applies the log's
 * writes to its own store in log order.
 *
 * <p>Why two steps: a node whose data dir is empty must ask its peers whether they knew it before
 * its engine may form a log (see {@link MemberCheck}), and it must answer their questions
 * meanwhile, so it serves before its engine runs.
 */
public interface Replication extends AutoCloseable {

    /**
     * The store sessions write through, over the node's own store. Until {@link #start}, the engine
     * is {@link ShardView.Role#DOWN} and the store refuses writes.
     *
     * @param local the node's own store: the state the log's writes are applied to
     * @return the store sessions write through
     */
    Store attach(Store local);

    /**
     * True if this node's engine has formed or joined its shard's log in this data dir before,
     * whether or not the log is still there: the engine keeps a mark of it beside the log. A node
     * with no such mark asks its peers before it starts ({@link MemberCheck}).
     *
     * @return whether the engine ran here before
     */
    boolean joinedBefore();

    /**
     * Starts replicating this node's shard: on its log if it has one. A member without a log may
     * form a new, empty one only if it is new to the shard; a member that had one must not, for a
     * Raft member that forgets its log (its votes, the entries it acknowledged) may vote a leader
     * in that lacks committed writes, which then overwrites them.
     *
     * @param newMember true if this node has never been a member (its engine never ran here and no
     *     peer knows it by another id): it may start with an empty log
     * @throws IOException if the engine cannot start (its data dir, its port), or if it has no log
     *     and is not new: the message says why and what to do
     */
    void start(boolean newMember) throws IOException;

    /**
     * This node's view of its shard now; cheap enough to read on every command.
     *
     * @return the role, term, leader and log positions
     */
    ShardView view();

    /**
     * The view with what INFO replication and ROLE report besides: dearer than {@link #view()}.
     *
     * @return the view, this member's id, its followers' positions on a leader
     */
    default ShardReport report() {
        ShardView v = view();
        return new ShardReport(v, "", v.leader(), -1, List.of());
    }

    /**
     * Where node {@code node}'s engine listens, for CLUSTER NODES' {@code @cport} field (Redis's
     * cluster bus port): the Raft port.
     *
     * @param node a node index
     * @return the port, or 0 if the engine has none
     */
    default int busPort(int node) {
        return 0;
    }

    /**
     * Redis's WAIT: completes with the number of this shard's other members known to hold the log
     * up to {@code index}, once {@code replicas} of them do or {@code timeout} passes, whichever is
     * first. Only a leader knows its followers' positions: elsewhere it completes with 0.
     *
     * @param index a log index: the connection's last write's ({@link
     *     dbf0.kv.storage.Store#lastWriteIndex})
     * @param replicas how many members to wait for
     * @param timeout how long to wait at most
     * @return a future of how many members hold it
     */
    CompletableFuture<Integer> awaitReplicas(long index, int replicas, Duration timeout);

    /** Stops the engine; the node's own store is its caller's to close. */
    @Override
    void close();
}
