package dbf0.kv.replication;

import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a member runs its shard's Raft group.
 *
 * @param dataDir where the Raft log and the snapshots live ({@code DIR/raft})
 * @param raftPortOffset a member's Raft port is its client port plus this (Redis's cluster bus sits
 *     at port + 10000); the same on every node
 * @param fsync {@code always}: a member acknowledges an entry only once it is forced to disk, so a
 *     committed write is on the disks of a majority; {@code interval} or {@code never}: once it is
 *     written, not forced, so a committed write is in a majority's memory or page cache
 * @param reads how the leader serves reads
 * @param electionMin the shortest wait without a leader's heartbeat before a follower stands
 * @param electionMax the longest such wait; each member draws its own between the two
 * @param snapshotEvery take a snapshot after this many entries since the last, and purge the log
 *     behind it
 * @param writeTimeout how long a write waits for its entry to be committed before it is answered
 *     TRYAGAIN (its outcome then unknown)
 * @param segmentBytes the Raft log is kept in segment files of about this many bytes (Ratis's 32
 *     MiB by default); a snapshot lets it purge whole segments only, so a smaller one frees disk
 *     sooner and sends a lagging member a snapshot sooner
 */
public record RaftOptions(
        Path dataDir,
        int raftPortOffset,
        FsyncPolicy fsync,
        ReadMode reads,
        Duration electionMin,
        Duration electionMax,
        long snapshotEvery,
        Duration writeTimeout,
        long segmentBytes) {

    /** How a leader answers reads. */
    public enum ReadMode {
        /**
         * ReadIndex: before reading, the leader confirms with a heartbeat round that a majority
         * still follows it. Linearizable, whatever the clocks do.
         */
        LINEARIZABLE,
        /**
         * A leader lease: after a heartbeat round a majority answered, the leader reads without
         * asking again for most of an election timeout, during which no other leader can be
         * elected. Linearizable only while clocks run at nearly the same rate.
         */
        LEASE
    }

    /** Ratis's own default segment size. */
    public static final long DEFAULT_SEGMENT_BYTES = 32L << 20;

    /** Redis's cluster bus offset. */
    public static final int DEFAULT_RAFT_PORT_OFFSET = 10_000;

    public RaftOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(reads, "reads");
        if (electionMin.isNegative()
                || electionMin.isZero()
                || electionMax.compareTo(electionMin) < 0) {
            throw new IllegalArgumentException(
                    "election timeouts " + electionMin + ".." + electionMax + " are not a range");
        }
        if (segmentBytes < 1024) {
            throw new IllegalArgumentException("a log segment of " + segmentBytes + " bytes");
        }
        if (raftPortOffset == 0 || Math.abs(raftPortOffset) > 65_535) {
            throw new IllegalArgumentException("bad raft port offset " + raftPortOffset);
        }
    }

    /** The defaults: port + 10000, {@code always}, ReadIndex, elections after 300-600 ms. */
    public static RaftOptions defaults(Path dataDir) {
        return new RaftOptions(
                dataDir,
                DEFAULT_RAFT_PORT_OFFSET,
                FsyncPolicy.ALWAYS,
                ReadMode.LINEARIZABLE,
                Duration.ofMillis(300),
                Duration.ofMillis(600),
                100_000,
                Duration.ofSeconds(3),
                DEFAULT_SEGMENT_BYTES);
    }

    public RaftOptions withFsync(FsyncPolicy policy) {
        return new RaftOptions(
                dataDir,
                raftPortOffset,
                policy,
                reads,
                electionMin,
                electionMax,
                snapshotEvery,
                writeTimeout,
                segmentBytes);
    }

    public RaftOptions withReads(ReadMode mode) {
        return new RaftOptions(
                dataDir,
                raftPortOffset,
                fsync,
                mode,
                electionMin,
                electionMax,
                snapshotEvery,
                writeTimeout,
                segmentBytes);
    }

    public RaftOptions withRaftPortOffset(int offset) {
        return new RaftOptions(
                dataDir,
                offset,
                fsync,
                reads,
                electionMin,
                electionMax,
                snapshotEvery,
                writeTimeout,
                segmentBytes);
    }

    public RaftOptions withElection(Duration min, Duration max) {
        return new RaftOptions(
                dataDir,
                raftPortOffset,
                fsync,
                reads,
                min,
                max,
                snapshotEvery,
                writeTimeout,
                segmentBytes);
    }

    public RaftOptions withSnapshotEvery(long entries) {
        return new RaftOptions(
                dataDir,
                raftPortOffset,
                fsync,
                reads,
                electionMin,
                electionMax,
                entries,
                writeTimeout,
                segmentBytes);
    }

    public RaftOptions withSegmentBytes(long bytes) {
        return new RaftOptions(
                dataDir,
                raftPortOffset,
                fsync,
                reads,
                electionMin,
                electionMax,
                snapshotEvery,
                writeTimeout,
                bytes);
    }
}
