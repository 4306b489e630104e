package dbf0.kv.replication;

import dbf0.kv.storage.CheckpointedStore;
import dbf0.kv.storage.LogPosition;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of the LSM store, which keeps no log of its own ({@link CheckpointedStore}): its tables
 * are the snapshot. The store records with its tables which entry of the Raft log they hold
 * everything up to; a snapshot is a checkpoint of them, hard links in a directory of Ratis's state
 * machine dir named by its position ({@code sm/lsm.<term>_<index>/}: the tables, a manifest naming
 * them and the position, {@code CURRENT}). A link costs no bytes and keeps a table that compaction
 * has since deleted from the store.
 *
 * <p>Ratis sends the directory's files to a member that lags behind the purged log or starts empty,
 * file by file with an MD5 of each, into the same place under its own {@code sm/}; {@link
 * #installed} then makes that checkpoint the store.
 *
 * <p>At start-up the store's own tables may be ahead of the latest snapshot (flushes since): a
 * checkpoint is taken at their position at once, so that Ratis, which replays the log from the
 * latest snapshot, replays only what the tables lack. If they are behind it (a stop between a
 * snapshot's installation and its loading), the snapshot is loaded first.
 */
final class TableSnapshots implements Snapshots, StateMachineStorage {

    private static final Logger LOG = LoggerFactory.getLogger(TableSnapshots.class);

    static final String PREFIX = "lsm.";
    private static final Pattern NAME = Pattern.compile("lsm\\.(\\d+)_(\\d+)");

    private final CheckpointedStore store;
    private final int shard;
    private volatile File smDir;
    private volatile FileListSnapshotInfo latest;

    TableSnapshots(CheckpointedStore store, int shard) {
        this.store = store;
        this.shard = shard;
    }

    /** The directory of the snapshot at {@code at}: {@code lsm.<term>_<index>}. */
    static String name(TermIndex at) {
        return PREFIX + at.getTerm() + "_" + at.getIndex();
    }

    @Override
    public StateMachineStorage storage() {
        return this;
    }

    // ---- the snapshots, as Ratis's StateMachineStorage

    @Override
    public void init(RaftStorage raftStorage) throws IOException {
        smDir =
                raftStorage
                        .getStorageDir()
                        .getStateMachineDir()
                        .getAbsoluteFile(); // Ratis relativizes
        Files.createDirectories(smDir.toPath());
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return latest;
    }

    @Override
    public File getSnapshotDir() {
        return smDir;
    }

    @Override
    public void format() {
        // a new group's sm/ is empty: nothing to do
    }

    /** Keeps the latest snapshot alone, and deletes what a snapshot cut short left. */
    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
        FileListSnapshotInfo keep = latest;
        for (Path dir : children()) {
            String name = dir.getFileName().toString();
            if (keep == null || !name.equals(name(keep.getTermIndex()))) {
                deleteTree(dir);
            }
        }
    }

    // ---- the snapshots, as the state machine uses them

    @Override
    public TermIndex start(RaftStorage raftStorage) throws IOException {
        init(raftStorage);
        Path found = newest();
        TermIndex snapshot = found == null ? null : load(found, false);
        LogPosition tables = store.applied();
        if (snapshot != null && snapshot.getIndex() > tables.index()) {
            LOG.info(
                    "shard {}: the lsm store's tables hold the log up to index {}, its snapshot"
                            + " up to {}: the snapshot is loaded",
                    shard,
                    tables.index(),
                    snapshot.getIndex());
            tables = store.restore(found);
        }
        if (tables.index() == 0) {
            return null;
        }
        TermIndex at = TermIndex.valueOf(tables.term(), tables.index());
        if (snapshot == null || at.getIndex() > snapshot.getIndex()) {
            take(at); // the tables are the snapshot: the log is replayed after them
        }
        LOG.info(
                "shard {}: the lsm store's tables hold the log up to index {} (term {}): the log"
                        + " is replayed from index {}",
                shard,
                at.getIndex(),
                at.getTerm(),
                at.getIndex() + 1);
        return at;
    }

    @Override
    public TermIndex installed() throws IOException {
        Path found = newest();
        if (found == null) {
            throw new IOException(smDir + ": no snapshot after one was installed");
        }
        TermIndex at = load(found, true);
        LOG.info("shard {}: loaded the snapshot the leader sent, at index {}", shard, at);
        return at;
    }

    /**
     * Reads the checkpoint in {@code dir}, checks that its manifest's position is the one its name
     * says, makes it the latest snapshot, and with {@code restore} makes it the store.
     */
    private TermIndex load(Path dir, boolean restore) throws IOException {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalStateException("not a snapshot's name: " + dir);
        }
        LogPosition named = new LogPosition(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
        LogPosition held = restore ? store.restore(dir) : store.positionOf(dir);
        if (!held.equals(named)) {
            throw new IOException(
                    dir + ": its manifest holds the log up to " + held + ", not " + named);
        }
        TermIndex at = TermIndex.valueOf(held.term(), held.index());
        latest = new FileListSnapshotInfo(files(dir), at);
        return at;
    }

    @Override
    public long take(TermIndex last) throws IOException {
        Path dir = smDir.toPath().resolve(name(last));
        if (latest != null && latest.getTermIndex().equals(last)) {
            return last.getIndex(); // nothing applied since
        }
        Path part = dir.resolveSibling(dir.getFileName() + ".part");
        deleteTree(part);
        deleteTree(dir);
        store.checkpoint(part, new LogPosition(last.getTerm(), last.getIndex()));
        Files.move(part, dir, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel sm = FileChannel.open(smDir.toPath(), StandardOpenOption.READ)) {
            sm.force(true); // the rename outlives a power cut before the log is purged behind it
        }
        latest = new FileListSnapshotInfo(files(dir), last);
        cleanupOldSnapshots(null);
        LOG.debug("shard {}: snapshot at {}: the lsm store's tables, linked", shard, last);
        return last.getIndex();
    }

    @Override
    public void applied(TermIndex entry) throws IOException {
        store.markApplied(new LogPosition(entry.getTerm(), entry.getIndex()));
    }

    // ---- files

    /** The snapshot directory with the highest index; partial ones ({@code .part}) never count. */
    private Path newest() throws IOException {
        return children().stream()
                .filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                .max(Comparator.comparingLong(TableSnapshots::index))
                .orElse(null);
    }

    private static long index(Path dir) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(2)) : -1;
    }

    private List<Path> children() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(smDir.toPath())) {
            for (Path p : s) {
                if (p.getFileName().toString().startsWith(PREFIX)) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    /**
     * The files Ratis sends of a snapshot: all but the {@code .md5} files its own installation
     * wrote. No digest: Ratis computes each file's MD5 as it reads it to send.
     */
    private static List<FileInfo> files(Path dir) throws IOException {
        List<FileInfo> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                if (!p.getFileName().toString().endsWith(".md5")) {
                    out.add(new FileInfo(p.toAbsolutePath(), null));
                }
            }
        }
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
