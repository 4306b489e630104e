package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.kv.server.cluster.RawResp;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One shard of three members on loopback: writes go through the leader, reads follow it. */
@Tag("slow") // starts Raft servers and elections: seconds
@Timeout(120)
class ReplicatedShardTest {

    @TempDir Path dir;

    @Test
    void theLeaderTakesWritesAndAFollowerSendsClientsToIt() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            assertThat(cluster.onLeader(0, "SET", "k", "v1")).isEqualTo("+OK\r\n");
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            int follower = (leader + 1) % 3;
            try (RawResp l = new RawResp(cluster.ports.get(leader));
                    RawResp f = new RawResp(cluster.ports.get(follower))) {
                assertThat(l.call("GET", "k")).isEqualTo("$2\r\nv1\r\n");
                String moved = "-MOVED 7629 127.0.0.1:" + cluster.ports.get(leader) + "\r\n";
                assertThat(f.call("GET", "k")).isEqualTo(moved);
                assertThat(f.call("SET", "k", "v2")).isEqualTo(moved);
                // READONLY: the follower answers from its own copy, once the write reached it
                assertThat(f.call("READONLY")).isEqualTo("+OK\r\n");
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> f.call("GET", "k").equals("$2\r\nv1\r\n"));
                assertThat(f.call("SET", "k", "v2")).isEqualTo(moved);
                assertThat(l.call("DEL", "k")).isEqualTo(":1\r\n");
                assertThat(l.call("DEL", "k")).isEqualTo(":0\r\n");
            }
        }
    }

    @Test
    void whenTheLeaderStopsAnotherTakesOverWithEveryAcknowledgedWrite() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            for (int i = 0; i < 100; i++) {
                assertThat(cluster.onLeader(0, "SET", "{k}" + i, "v" + i)).isEqualTo("+OK\r\n");
            }
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            cluster.stop(leader);
            int next = cluster.awaitLeader(0, Duration.ofSeconds(20));
            assertThat(next).isNotEqualTo(leader);
            for (int i = 0; i < 100; i++) {
                assertThat(cluster.onLeader(0, "GET", "{k}" + i)).endsWith("v" + i + "\r\n");
            }
            assertThat(cluster.onLeader(0, "SET", "{k}new", "after")).isEqualTo("+OK\r\n");
            // the old leader comes back as a follower and catches up
            cluster.restart(leader);
            try (RawResp old = new RawResp(cluster.ports.get(leader))) {
                old.call("READONLY");
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> old.call("GET", "{k}new").equals("$5\r\nafter\r\n"));
                assertThat(old.text("DBF0-ROLE")).startsWith("follower");
            }
        }
    }
}
