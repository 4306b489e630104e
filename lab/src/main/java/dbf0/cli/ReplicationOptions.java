package dbf0.cli;

import dbf0.common.Durations;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.options.WalCliOptions;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.replication.RaftOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The server's replication flags: {@code --cluster-replicas R} makes each run of R+1 nodes of
 * {@code --cluster-nodes} a shard whose members keep copies through Raft (docs/8-replication.md).
 */
final class ReplicationOptions {

    @Option(
            names = "--cluster-replicas",
            paramLabel = "R",
            defaultValue = "0",
            description =
                    "with --cluster-nodes: each run of R+1 nodes, in list order, is one shard whose"
                            + " members keep copies of its keys through a Raft group (as"
                            + " redis-cli --cluster create --cluster-replicas R groups them); its"
                            + " leader is the shard's master. Needs --data-dir, where the Raft log"
                            + " lives (default: ${DEFAULT-VALUE}, no copies)")
    int replicas;

    @Option(
            names = "--raft-port-offset",
            paramLabel = "N",
            defaultValue = "" + RaftOptions.DEFAULT_RAFT_PORT_OFFSET,
            description =
                    "a node's Raft port is its client port plus N, on its --bind address (Redis's"
                            + " cluster bus sits at +10000); the same N on every node (default:"
                            + " ${DEFAULT-VALUE})")
    int raftPortOffset;

    @Option(
            names = "--read-mode",
            paramLabel = "MODE",
            defaultValue = "linearizable",
            description =
                    "how a shard's leader serves reads: linearizable (ReadIndex: a heartbeat round"
                            + " confirms the leadership first) or lease (no round while the"
                            + " leader's lease holds; linearizable only while clocks keep pace)."
                            + " A replica serves reads itself, possibly stale, to a connection"
                            + " that sent READONLY (default: ${DEFAULT-VALUE})")
    String readMode;

    @Option(
            names = "--election-timeout",
            paramLabel = "DURATION",
            defaultValue = "300ms",
            description =
                    "a follower that hears no heartbeat for a time drawn between DURATION and"
                            + " twice it calls an election (default: ${DEFAULT-VALUE})")
    String electionTimeout;

    boolean replicated() {
        return replicas > 0;
    }

    /** How {@code nodes} group into shards; a usage error if they do not split evenly. */
    Shards shards(CommandSpec spec, List<ClusterNode> nodes) {
        Cli.require(spec, replicas >= 0, "--cluster-replicas must be 0 or more, got " + replicas);
        return Cli.parameter(spec, () -> new Shards(nodes.size(), replicas));
    }

    /** The Raft options; {@code --data-dir} is required and {@code --fsync} applies to the log. */
    RaftOptions raftOptions(CommandSpec spec, WalCliOptions wal) {
        Path dir = wal.dataDir(spec);
        Cli.require(
                spec,
                dir != null,
                "--cluster-replicas needs --data-dir: the shard's Raft log and snapshots live"
                        + " there");
        Duration election = Cli.parameter(spec, () -> Durations.parse(electionTimeout));
        Cli.require(
                spec,
                election.toMillis() >= 10,
                "--election-timeout must be at least 10ms, got " + electionTimeout);
        RaftOptions.ReadMode reads =
                Cli.parameter(
                        spec,
                        () -> {
                            try {
                                return RaftOptions.ReadMode.valueOf(
                                        readMode.toUpperCase(Locale.ROOT));
                            } catch (IllegalArgumentException e) {
                                throw new IllegalArgumentException(
                                        "--read-mode is linearizable or lease, got " + readMode);
                            }
                        });
        FsyncPolicy fsync = wal.toWalOptions(spec).fsync();
        return Cli.parameter(
                spec,
                () ->
                        RaftOptions.defaults(dir)
                                .withRaftPortOffset(raftPortOffset)
                                .withFsync(fsync)
                                .withReads(reads)
                                .withElection(election, election.multipliedBy(2)));
    }
}
