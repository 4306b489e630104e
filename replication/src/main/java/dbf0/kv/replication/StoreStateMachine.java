package dbf0.kv.replication;

import dbf0.kv.cluster.SlotMap;
import dbf0.kv.storage.Store;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.MD5FileUtil;
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
 * <p>Snapshots: {@link #takeSnapshot} writes the store whole ({@link MapSnapshot}) under the last
 * applied index, which lets Ratis purge the log behind it and send it to a member that lags or
 * starts empty; {@link #reinitialize} loads one that arrived. Ratis calls both between applies, so
 * the store does not change under them.
 */
final class StoreStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(StoreStateMachine.class);

    /** A delete's answer in the reply: it found its key. */
    static final byte FOUND = 1;

    private final Store store;
    private final int shard;
    private final int myself;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();

    StoreStateMachine(Store store, int shard, int myself) {
        this.store = store;
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
        storage.init(raftStorage);
        load(storage.loadLatestSnapshot());
    }

    @Override
    public void reinitialize() throws IOException {
        load(storage.loadLatestSnapshot()); // a snapshot the leader sent has just been installed
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file, md5);
        }
        long pairs = MapSnapshot.read(file.toPath(), store);
        updateLastAppliedTermIndex(snapshot.getTermIndex());
        LOG.info("loaded the snapshot at {}: {} keys", snapshot.getTermIndex(), pairs);
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        long pairs = MapSnapshot.write(store, file.toPath());
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(
                new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        LOG.debug("snapshot at {}: {} keys", last, pairs);
        return last.getIndex();
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
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
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
