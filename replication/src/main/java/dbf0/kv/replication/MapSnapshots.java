package dbf0.kv.replication;

import dbf0.kv.storage.Store;
import java.io.File;
import java.io.IOException;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of a store that lives in memory: the whole map written to one file ({@link
 * MapSnapshot}), named by its term and index in Ratis's own way ({@code snapshot.<term>_<index>}
 * with an {@code .md5} beside it). At start-up the latest is loaded and the log is replayed after
 * it; the store itself keeps nothing on disk.
 */
final class MapSnapshots implements Snapshots {

    private static final Logger LOG = LoggerFactory.getLogger(MapSnapshots.class);

    private final Store store;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();

    MapSnapshots(Store store) {
        this.store = store;
    }

    @Override
    public StateMachineStorage storage() {
        return storage;
    }

    @Override
    public TermIndex start(RaftStorage raftStorage) throws IOException {
        storage.init(raftStorage);
        return load();
    }

    @Override
    public TermIndex installed() throws IOException {
        return load();
    }

    private TermIndex load() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) {
            return null;
        }
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file, md5);
        }
        long pairs = MapSnapshot.read(file.toPath(), store);
        LOG.info("loaded the snapshot at {}: {} keys", snapshot.getTermIndex(), pairs);
        return snapshot.getTermIndex();
    }

    @Override
    public long take(TermIndex last) throws IOException {
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        long pairs = MapSnapshot.write(store, file.toPath());
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(
                new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        LOG.debug("snapshot at {}: {} keys", last, pairs);
        return last.getIndex();
    }

    @Override
    public void applied(TermIndex entry) {
        // the map keeps nothing durable of its own: the snapshots are all
    }
}
