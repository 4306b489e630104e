package dbf0.kv.replication;

import dbf0.kv.cluster.SlotMap;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's store as its shard's state machine, in Ratis's terms. Ratis calls {@link
 * #applyTransaction} for each committed entry, one at a time and in log order, on every member: the
 * entry's writes ({@link WriteBatch}) go into the store, and the leader's reply to them says which
 * deletes found their key. Because every member applies the same entries in the same order to a
 * store that started the same, every member ends with the same keys: that is a replicated state
 * machine.
 *
 * <p>Snapshots: {@link #takeSnapshot} keeps the store at the last applied index ({@link Snapshots}:
 * a map written whole, the LSM store's tables linked aside), which lets Ratis purge the log behind
 * it and send it to a member that lags or starts empty; {@link #reinitialize} loads one that
 * arrived. Ratis calls both between applies, so the store does not change under them. After a
 * restart Ratis replays the log from the entry after the latest snapshot.
 */
final class StoreStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(StoreStateMachine.class);

    /** A delete's answer in the reply: it found its key. */
    static final byte FOUND = 1;

    private final Store store;
    private final Snapshots snapshots;
    private final int shard;
    private final int myself;
    private final LongAdder entries = new LongAdder();
    private final LongAdder installs = new LongAdder();

    StoreStateMachine(Store store, Snapshots snapshots, int shard, int myself) {
        this.store = store;
        this.snapshots = snapshots;
        this.shard = shard;
        this.myself = myself;
    }

    /** Says in words who leads the shard now: an election's outcome, as this member saw it. */
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId leader) {
        int node = ShardGroup.nodeOf(leader);
        long term;
        try {
            term = getServer().join().getDivision(member.getGroupId()).getInfo().getCurrentTerm();
        } catch (IOException e) {
            term = -1; // closing
        }
        if (node == myself) {
            LOG.info("shard {}: this node leads it now (term {})", shard, term);
        } else if (node != SlotMap.NONE) {
            LOG.info("shard {}: node {} leads it now (term {})", shard, node, term);
        } else {
            LOG.info("shard {}: no leader now (term {}): an election is on", shard, term);
        }
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
            throws IOException {
        super.initialize(server, groupId, raftStorage);
        TermIndex at = snapshots.start(raftStorage);
        if (at != null) {
            updateLastAppliedTermIndex(at);
        }
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /**
     * Before a snapshot the leader sent is installed: Ratis stops applying, and checks that the
     * state machine says it is paused before it calls {@link #reinitialize}.
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    @Override
    public void reinitialize() throws IOException {
        TermIndex at = snapshots.installed(); // a snapshot the leader sent has just been installed
        updateLastAppliedTermIndex(at);
        installs.increment();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return snapshots.storage();
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        return snapshots.take(last);
    }

    /** Log entries applied since this member started: those replayed at start-up among them. */
    long entriesApplied() {
        return entries.sum();
    }

    /** Snapshots the leader sent that this member loaded since it started. */
    long snapshotsInstalled() {
        return installs.sum();
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        List<WriteBatch.Op> ops = WriteBatch.decode(data);
        byte[] found = new byte[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            WriteBatch.Op op = ops.get(i);
            switch (op.kind()) {
                case WriteBatch.PUT -> store.put(op.key(), op.value());
                case WriteBatch.DELETE -> found[i] = store.delete(op.key()) ? FOUND : 0;
                case WriteBatch.CLEAR -> store.clear();
                default -> throw new IllegalStateException("write kind " + op.kind());
            }
        }
        try {
            snapshots.applied(TermIndex.valueOf(entry));
        } catch (IOException e) {
            // The store took the writes but cannot keep them (its flush fails): thrown, so that
            // Ratis stops this member rather than let it go on applying to a store that lost some.
            throw new UncheckedIOException(
                    "shard " + shard + ": the store cannot keep entry " + entry.getIndex(), e);
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        entries.increment();
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(found)));
    }

    /**
     * A read-only request: the read barrier's ({@link ReadBarrier}). Ratis calls it once the leader
     * has confirmed its leadership and applied every entry committed before the request came
     * (ReadIndex); the reads themselves are then served from the store.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }
}
