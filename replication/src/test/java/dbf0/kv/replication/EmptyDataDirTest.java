package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.cluster.RawResp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that lost its log must not vote as if it had it: restarted with an empty data dir it is
 * refused (its peers know it by its old id), and so is one whose Raft log alone went missing. The
 * shard meanwhile keeps every acknowledged write.
 */
@Tag("slow") // starts Raft servers and elections: seconds
@Timeout(120)
class EmptyDataDirTest {

    @TempDir Path dir;

    @Test
    void aMemberRestartedWithAnEmptyDataDirRefusesToStart() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            for (int i = 0; i < 20; i++) {
                assertThat(cluster.onLeader(0, "SET", "k" + i, "v" + i)).isEqualTo("+OK\r\n");
            }
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            int lost = (leader + 1) % 3;
            awaitEveryIdKnown(cluster);
            cluster.stop(lost);
            deleteTree(cluster.dataDir(lost));
            cluster.restart(lost);
            KeyValueServer node = cluster.servers.get(lost);

            Throwable why = node.failure().get(30, TimeUnit.SECONDS);
            assertThat(why)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("started with an empty data dir")
                    .hasMessageContaining("knows it as")
                    .hasMessageContaining("restore its data dir");
            try (RawResp c = new RawResp(cluster.ports.get(lost))) {
                assertThat(c.text("DBF0-ROLE")).startsWith("down ");
            }
            // it formed no log, and left the mark of none
            assertThat(cluster.dataDir(lost).resolve("raft")).doesNotExist();
            assertThat(cluster.dataDir(lost).resolve(RaftReplication.MEMBER_FILE)).doesNotExist();
            // the two others still serve every acknowledged write
            for (int i = 0; i < 20; i++) {
                assertThat(cluster.onLeader(0, "GET", "k" + i)).endsWith("v" + i + "\r\n");
            }
        }
    }

    @Test
    void aMemberWhoseRaftLogWentMissingRefusesToStart() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            assertThat(cluster.onLeader(0, "SET", "k", "v")).isEqualTo("+OK\r\n");
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            int lost = (leader + 2) % 3;
            cluster.stop(lost);
            deleteTree(cluster.dataDir(lost).resolve("raft"));
            assertThatThrownBy(() -> cluster.restart(lost))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("its Raft log is gone")
                    .hasMessageContaining("will not start");
            cluster.servers.set(lost, null);
            assertThat(cluster.dataDir(lost).resolve("raft")).doesNotExist();
        }
    }

    /** Waits until every node knows every other's id: CLUSTER INFO says ok only then. */
    private static void awaitEveryIdKnown(LocalShards cluster) {
        await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> {
                            for (int port : cluster.ports) {
                                try (RawResp c = new RawResp(port)) {
                                    if (!c.text("CLUSTER", "INFO").startsWith("cluster_state:ok")) {
                                        return false;
                                    }
                                }
                            }
                            return true;
                        });
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
