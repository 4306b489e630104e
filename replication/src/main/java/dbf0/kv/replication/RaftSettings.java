package dbf0.kv.replication;

import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Ratis's properties for a member, from {@link RaftOptions}: every setting dbf0 changes, here. */
final class RaftSettings {

    /** A lease lasts this fraction of the shortest election timeout after a majority answered. */
    static final double LEASE_RATIO = 0.9;

    private RaftSettings() {}

    static RaftProperties properties(RaftOptions o, Path dir, String host, int port) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.toFile()));
        GrpcConfigKeys.Server.setHost(p, host);
        GrpcConfigKeys.Server.setPort(p, port);
        // Elections: a follower that hears no heartbeat for a time drawn between these stands.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(o.electionMin().toMillis()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(o.electionMax().toMillis()));
        // A leader that hears from no majority for an election timeout steps down (Ratis checks
        // this by itself), and then would not stand again for 10 s, Ratis's default, so that a
        // cut-off leader does not disturb the others. Pre-vote already keeps it from disturbing
        // them; the 10 s left a shard leaderless whenever a freshly elected leader was slow to
        // start (its first heartbeat late on a busy machine, it steps down at once) and held the
        // longest log, which no other member can win an election against. One shortest election
        // timeout is wait enough.
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
                p, millis(o.electionMin().toMillis()));
        // Reads: ReadIndex always (Ratis's DEFAULT option would read the leader's state machine
        // with no check at all). The heartbeat check is what makes a ReadIndex wait for a majority
        // to confirm the leadership: on by default, and set here so that no default can turn it
        // off. A lease on top when asked: Ratis then answers a ReadIndex at once while the leader
        // heard a majority within 0.9 of the shortest election timeout, no election can have
        // ended since (if clocks run at the same rate).
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderHeartbeatCheckEnabled(p, true);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, o.reads() == RaftOptions.ReadMode.LEASE);
        RaftServerConfigKeys.Read.setLeaderLeaseTimeoutRatio(p, LEASE_RATIO);
        // Durability: under always an entry is forced before a member acknowledges it; otherwise
        // the log is flushed behind the acknowledgements.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, o.fsync() != FsyncPolicy.ALWAYS);
        // Snapshots, and the log purged behind them: every closed segment a snapshot covers, at
        // each snapshot (the gap Ratis would otherwise wait for is counted in entries).
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, o.snapshotEvery());
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2); // older map snapshots deleted
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(o.segmentBytes()));
        RaftServerConfigKeys.Log.setPreallocatedSize(
                p, SizeInBytes.valueOf(Math.min(o.segmentBytes(), 4L << 20)));
        // A stop takes no snapshot: a restart replays the log from the last one, as a crash's does,
        // so the path a crash takes is the one every restart tests.
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        return p;
    }

    private static TimeDuration millis(long ms) {
        return TimeDuration.valueOf(ms, TimeUnit.MILLISECONDS);
    }
}
