package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.server.cluster.RawResp;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.lsm.LsmStore;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One shard of three members, each an LSM store whose only log is the shard's Raft log: a restart
 * replays the log from the position the tables hold, and a member that lags behind the purged log,
 * or starts empty, is sent the leader's tables and ends with the same keys.
 */
@Tag("slow") // starts Raft servers and elections: seconds
@Timeout(120)
class ReplicatedLsmShardTest {

    @TempDir Path dir;

    /** Memtables of 64 KiB (the least): a write of 1 KiB fills one every 60 or so. */
    static final UnaryOperator<LsmOptions> SMALL = o -> o.withMemtableBytes(64 << 10);

    /** Patient elections; the log not forced (no machine crashes here): hundreds of writes fast. */
    static RaftOptions fast(RaftOptions o) {
        return LocalShards.PATIENT.apply(o).withFsync(FsyncPolicy.NEVER);
    }

    static String value(int i) {
        return "v" + i + "-" + "x".repeat(1000);
    }

    /** Writes keys {@code from..to} on the leader, one entry each, over one connection. */
    static void write(LocalShards cluster, int from, int to) throws Exception {
        cluster.onLeader(0, "SET", "k" + from, value(from)); // waits out an election
        int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
        try (RawResp c = new RawResp(cluster.ports.get(leader))) {
            for (int i = from + 1; i < to; i++) {
                assertThat(c.call("SET", "k" + i, value(i))).isEqualTo("+OK\r\n");
            }
        }
    }

    static Map<ByteArrayWrapper, ByteArrayWrapper> contents(LocalShards cluster, int node) {
        Map<ByteArrayWrapper, ByteArrayWrapper> all = new TreeMap<>();
        cluster.servers.get(node).lsmStore().forEach(all::put);
        return all;
    }

    static long applied(LocalShards cluster, int node) {
        return cluster.engines.get(node).view().appliedIndex();
    }

    /** Waits until {@code node} has applied what the leader has, and holds the same keys. */
    static void awaitSame(LocalShards cluster, int node) throws Exception {
        int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
        long target = applied(cluster, leader);
        await().atMost(Duration.ofSeconds(30)).until(() -> applied(cluster, node) >= target);
        assertThat(contents(cluster, node)).isEqualTo(contents(cluster, leader));
    }

    static int follower(LocalShards cluster, int not) throws Exception {
        int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
        for (int i = 0; i < 3; i++) {
            if (i != leader && i != not) {
                return i;
            }
        }
        throw new AssertionError("no follower besides " + not);
    }

    @Test
    void aRestartReplaysOnlyTheEntriesAfterThoseTheTablesHold() throws Exception {
        UnaryOperator<RaftOptions> noSnapshots = o -> fast(o).withSnapshotEvery(1_000_000);
        try (LocalShards cluster = new LocalShards(3, 2, dir, noSnapshots, SMALL)) {
            write(cluster, 0, 200);
            for (int i = 0; i < 3; i++) { // a few small ones: the last memtable is not full
                assertThat(cluster.onLeader(0, "SET", "small" + i, "s")).isEqualTo("+OK\r\n");
            }
            int f = follower(cluster, -1);
            awaitSame(cluster, f);
            long last = applied(cluster, f);
            cluster.stop(f);
            long tables;
            int inTables;
            LsmOptions mine = SMALL.apply(LsmOptions.defaults(cluster.dataDir(f))).withoutOwnLog();
            try (LsmStore store = LsmStore.open(mine)) { // its tables alone: no log of its own
                tables = store.applied().index();
                int[] n = {0};
                store.forEach((k, v) -> n[0]++);
                inTables = n[0];
            }
            assertThat(tables).isBetween(1L, last - 3);
            assertThat(inTables).isBetween(1, 200); // the last memtable's writes are not there

            cluster.restart(f);
            awaitSame(cluster, f);
            // one entry per SET: exactly the writes the tables lacked were replayed, none before
            assertThat(cluster.engines.get(f).stateMachine().entriesApplied())
                    .isEqualTo(203L - inTables);
            assertThat(cluster.onLeader(0, "SET", "after", "restart")).isEqualTo("+OK\r\n");
            awaitSame(cluster, f);
        }
    }

    @Test
    void aMemberBehindThePurgedLogIsSentTheTables() throws Exception {
        UnaryOperator<RaftOptions> purging =
                o -> fast(o).withSnapshotEvery(50).withSegmentBytes(16 << 10);
        try (LocalShards cluster = new LocalShards(3, 2, dir, purging, SMALL)) {
            write(cluster, 0, 20);
            int lagging = follower(cluster, -1);
            awaitSame(cluster, lagging);
            cluster.stop(lagging);
            write(cluster, 20, 320); // snapshots every 50 entries purge the log behind them
            assertThat(cluster.onLeader(0, "DEL", "k5")).isEqualTo(":1\r\n");
            cluster.restart(lagging);
            awaitSame(cluster, lagging);
            StoreStateMachine machine = cluster.engines.get(lagging).stateMachine();
            assertThat(machine.snapshotsInstalled()).isPositive();
            assertThat(machine.entriesApplied()).isLessThan(300); // most came as tables
            assertThat(contents(cluster, lagging)).hasSize(319).doesNotContainKey(key("k5"));

            // A member restarted with its data dir deleted is not sent the tables: its peers know
            // it, so it refuses to start rather than vote with a log it has lost
            // (EmptyDataDirTest). A lagging member is the case that installs a snapshot.
            awaitSame(cluster, lagging);
        }
    }

    static ByteArrayWrapper key(String s) {
        return new ByteArrayWrapper(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
