package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.kv.server.cluster.RawResp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ROLE, WAIT and INFO replication on a shard of three, byte for byte where Redis fixes the shape;
 * and CLUSTER NODES's {@code @cport}, the Raft port.
 */
@Tag("slow") // starts Raft servers and elections: seconds
@Timeout(120)
class ReplicationCommandsTest {

    private static final Pattern MASTER_ROLE =
            Pattern.compile(
                    "\\*3\r\n"
                            + "\\$6\r\n"
                            + "master\r\n"
                            + ":(\\d+)\r\n"
                            + "\\*2\r\n"
                            + "\\*3\r\n"
                            + "\\$9\r\n"
                            + "127\\.0\\.0\\.1\r\n"
                            + "\\$\\d+\r\n"
                            + "(\\d+)\r\n"
                            + "\\$\\d+\r\n"
                            + "(\\d+)\r\n"
                            + "\\*3\r\n"
                            + "\\$9\r\n"
                            + "127\\.0\\.0\\.1\r\n"
                            + "\\$\\d+\r\n"
                            + "(\\d+)\r\n"
                            + "\\$\\d+\r\n"
                            + "(\\d+)\r\n");

    @TempDir Path dir;

    @Test
    void theLeaderCountsItsReplicasAndAFollowerNamesItsMaster() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            assertThat(cluster.onLeader(0, "SET", "k", "v")).isEqualTo("+OK\r\n");
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            List<Integer> followers = new ArrayList<>(List.of(0, 1, 2));
            followers.remove(Integer.valueOf(leader));
            try (RawResp l = new RawResp(cluster.ports.get(leader));
                    RawResp f = new RawResp(cluster.ports.get(followers.get(0)))) {
                assertThat(l.call("SET", "k", "v2")).isEqualTo("+OK\r\n");
                // both followers hold this connection's write within 10 s
                assertThat(l.call("WAIT", "2", "10000")).isEqualTo(":2\r\n");
                long written =
                        Long.parseLong(field(l.text("INFO", "replication"), "master_repl_offset"));

                Matcher role = MASTER_ROLE.matcher(l.call("ROLE"));
                assertThat(role.matches()).as("ROLE on the leader").isTrue();
                assertThat(Long.parseLong(role.group(1))).isGreaterThanOrEqualTo(written);
                assertThat(
                                List.of(
                                        Integer.parseInt(role.group(2)),
                                        Integer.parseInt(role.group(4))))
                        .containsExactlyInAnyOrder(
                                cluster.ports.get(followers.get(0)),
                                cluster.ports.get(followers.get(1)));
                assertThat(Long.parseLong(role.group(3))).isGreaterThanOrEqualTo(written);
                assertThat(Long.parseLong(role.group(5))).isGreaterThanOrEqualTo(written);

                String info = l.text("INFO", "replication");
                assertThat(info)
                        .startsWith("# Replication\r\nrole:master\r\nconnected_slaves:2\r\n");
                assertThat(info).contains("slave0:ip=127.0.0.1,port=", ",state=online,offset=");
                assertThat(field(info, "dbf0_raft_role")).isEqualTo("leader");

                // a follower: slave of the leader, its link up, its offset its applied index
                int leaderPort = cluster.ports.get(leader);
                await().atMost(Duration.ofSeconds(10))
                        .until(
                                () ->
                                        f.call("ROLE")
                                                .startsWith(replicaRole(leaderPort, "connected")));
                String followerInfo = f.text("INFO", "replication");
                assertThat(followerInfo)
                        .startsWith(
                                "# Replication\r\n"
                                        + "role:slave\r\n"
                                        + "master_host:127.0.0.1\r\n"
                                        + "master_port:"
                                        + leaderPort
                                        + "\r\nmaster_link_status:up\r\n");
                assertThat(Long.parseLong(field(followerInfo, "slave_repl_offset"))).isPositive();
                assertThat(f.call("WAIT", "1", "0"))
                        .startsWith("-ERR WAIT cannot be used with replica instances");

                // @cport is each node's Raft port
                String nodes = l.text("CLUSTER", "NODES");
                for (int port : cluster.ports) {
                    assertThat(nodes)
                            .contains("127.0.0.1:" + port + "@" + (port + cluster.offset) + " ");
                }
            }
        }
    }

    @Test
    void waitCountsOnlyTheReplicasThatHoldTheWrite() throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir)) {
            assertThat(cluster.onLeader(0, "SET", "k", "v")).isEqualTo("+OK\r\n");
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            cluster.stop((leader + 1) % 3);
            try (RawResp l = new RawResp(cluster.ports.get(leader))) {
                assertThat(l.call("SET", "k", "v2")).isEqualTo("+OK\r\n");
                // one replica left: asked for two, WAIT answers one once its timeout has passed
                assertThat(l.call("WAIT", "2", "300")).isEqualTo(":1\r\n");
                assertThat(l.call("WAIT", "1", "0")).isEqualTo(":1\r\n");
                assertThat(l.call("WAIT", "x", "0"))
                        .isEqualTo("-ERR value is not an integer or out of range\r\n");
                assertThat(l.call("WAIT", "1", "-1")).isEqualTo("-ERR timeout is negative\r\n");
            }
        }
    }

    private static String replicaRole(int leaderPort, String state) {
        return "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:"
                + leaderPort
                + "\r\n$"
                + state.length()
                + "\r\n"
                + state
                + "\r\n:";
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        throw new AssertionError("no " + name + " in " + info);
    }
}
