package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.cluster.HashSlots;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every cluster reply byte for byte, against the formats Redis 7.0 documents (and that a
 * redis-server 7.0.15 in cluster mode was seen to send): three nodes in this JVM, raw RESP over
 * loopback.
 */
class ClusterRepliesTest {

    private static LocalCluster cluster;
    private static final List<String> IDS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = new LocalCluster(3);
        for (int port : cluster.ports) {
            try (RawResp c = new RawResp(port)) {
                IDS.add(c.text("CLUSTER", "MYID"));
            }
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    static String call(int node, String... args) throws Exception {
        try (RawResp c = new RawResp(cluster.port(node))) {
            return c.call(args);
        }
    }

    static final int[][] RANGES = {{0, 5460}, {5461, 10921}, {10922, 16383}};

    /** A key whose slot node {@code node} owns. */
    static String keyOn(int node, String prefix) {
        for (int i = 0; ; i++) {
            String key = prefix + i;
            int slot = HashSlots.slot(key.getBytes());
            if (slot >= RANGES[node][0] && slot <= RANGES[node][1]) {
                return key;
            }
        }
    }

    @Test
    void idsAreFortyHexAndDistinct() throws Exception {
        assertThat(IDS).allMatch(id -> id.matches("[0-9a-f]{40}")).doesNotHaveDuplicates();
        assertThat(call(1, "CLUSTER", "MYID")).isEqualTo(bulk(IDS.get(1)));
    }

    @Test
    void slots() throws Exception {
        StringBuilder expected = new StringBuilder("*3\r\n");
        StringBuilder expected3 = new StringBuilder("*3\r\n");
        for (int i = 0; i < 3; i++) {
            String entry =
                    "*3\r\n:"
                            + RANGES[i][0]
                            + "\r\n:"
                            + RANGES[i][1]
                            + "\r\n*4\r\n"
                            + bulk("127.0.0.1")
                            + ":"
                            + cluster.port(i)
                            + "\r\n"
                            + bulk(IDS.get(i));
            expected.append(entry).append("*0\r\n");
            expected3.append(entry).append("%0\r\n");
        }
        assertThat(call(2, "CLUSTER", "SLOTS")).isEqualTo(expected.toString());
        try (RawResp c = new RawResp(cluster.port(0))) {
            c.call("HELLO", "3");
            assertThat(c.call("CLUSTER", "SLOTS")).isEqualTo(expected3.toString());
        }
    }

    @Test
    void shards() throws Exception {
        StringBuilder expected = new StringBuilder("*3\r\n");
        for (int i = 0; i < 3; i++) {
            expected.append("*4\r\n")
                    .append(bulk("slots"))
                    .append("*2\r\n:")
                    .append(RANGES[i][0])
                    .append("\r\n:")
                    .append(RANGES[i][1])
                    .append("\r\n")
                    .append(bulk("nodes"))
                    .append("*1\r\n*14\r\n")
                    .append(bulk("id"))
                    .append(bulk(IDS.get(i)))
                    .append(bulk("port"))
                    .append(":")
                    .append(cluster.port(i))
                    .append("\r\n")
                    .append(bulk("ip"))
                    .append(bulk("127.0.0.1"))
                    .append(bulk("endpoint"))
                    .append(bulk("127.0.0.1"))
                    .append(bulk("role"))
                    .append(bulk("master"))
                    .append(bulk("replication-offset"))
                    .append(":0\r\n")
                    .append(bulk("health"))
                    .append(bulk("online"));
        }
        assertThat(call(0, "CLUSTER", "SHARDS")).isEqualTo(expected.toString());
        try (RawResp c = new RawResp(cluster.port(0))) {
            c.call("HELLO", "3");
            String resp3 = expected.toString().replace("*4\r\n$5\r\nslots", "%2\r\n$5\r\nslots");
            resp3 = resp3.replace("*14\r\n", "%7\r\n");
            assertThat(c.call("CLUSTER", "SHARDS")).isEqualTo(resp3);
        }
    }

    @Test
    void nodes() throws Exception {
        String text;
        try (RawResp c = new RawResp(cluster.port(1))) {
            String raw = c.call("CLUSTER", "NODES");
            text = c.text("CLUSTER", "NODES");
            assertThat(raw).startsWith("$" + text.length() + "\r\n").endsWith("\n\r\n");
        }
        StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            pattern.append(Pattern.quote(IDS.get(i) + " 127.0.0.1:" + cluster.port(i) + "@0 "))
                    .append(i == 1 ? "myself,master - 0 0 " : "master - 0 [0-9]+ ")
                    .append(i + 1)
                    .append(" connected ")
                    .append(RANGES[i][0])
                    .append('-')
                    .append(RANGES[i][1])
                    .append("\n");
        }
        assertThat(text).matches(pattern.toString());
    }

    @Test
    void info() throws Exception {
        String text =
                "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n"
                        + "cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\n"
                        + "cluster_known_nodes:3\r\ncluster_size:3\r\n"
                        + "cluster_current_epoch:3\r\ncluster_my_epoch:2\r\n"
                        + "cluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n"
                        + "total_cluster_links_buffer_limit_exceeded:0\r\n";
        assertThat(call(1, "CLUSTER", "INFO")).isEqualTo(bulk(text));
        try (RawResp c = new RawResp(cluster.port(1))) {
            c.call("HELLO", "3");
            assertThat(c.call("CLUSTER", "INFO"))
                    .isEqualTo("=" + (text.length() + 4) + "\r\ntxt:" + text + "\r\n");
        }
        assertThat(call(0, "INFO", "cluster"))
                .isEqualTo(bulk("# Cluster\r\ncluster_enabled:1\r\n\r\n"));
        assertThat(call(0, "INFO")).contains("redis_mode:cluster\r\n");
        assertThat(call(0, "HELLO", "2")).contains(bulk("mode") + bulk("cluster"));
    }

    @Test
    void keysAndSlots() throws Exception {
        assertThat(call(0, "CLUSTER", "KEYSLOT", "somekey")).isEqualTo(":11058\r\n");
        assertThat(call(0, "CLUSTER", "KEYSLOT", "{user1000}.following")).isEqualTo(":3443\r\n");
        String a = "{slotkeys}a";
        int slot = HashSlots.slot(a.getBytes());
        int node = slot <= 5460 ? 0 : slot <= 10921 ? 1 : 2;
        assertThat(call(node, "MSET", a, "1", "{slotkeys}b", "2")).isEqualTo("+OK\r\n");
        assertThat(call(node, "MGET", a, "{slotkeys}b", "{slotkeys}c"))
                .isEqualTo("*3\r\n" + bulk("1") + bulk("2") + "$-1\r\n");
        assertThat(call(node, "CLUSTER", "COUNTKEYSINSLOT", "" + slot)).isEqualTo(":2\r\n");
        String keys = call(node, "CLUSTER", "GETKEYSINSLOT", "" + slot, "10");
        assertThat(keys)
                .isIn(
                        "*2\r\n" + bulk(a) + bulk("{slotkeys}b"),
                        "*2\r\n" + bulk("{slotkeys}b") + bulk(a));
        assertThat(call(node, "CLUSTER", "GETKEYSINSLOT", "" + slot, "1")).startsWith("*1\r\n");
        assertThat(call(node, "CLUSTER", "GETKEYSINSLOT", "" + slot, "0")).isEqualTo("*0\r\n");
        assertThat(call(node, "EXISTS", a, "{slotkeys}b")).isEqualTo(":2\r\n");
        assertThat(call(node, "DEL", a, "{slotkeys}b")).isEqualTo(":2\r\n");
        assertThat(call(node, "CLUSTER", "COUNTKEYSINSLOT", "" + slot)).isEqualTo(":0\r\n");
    }

    @Test
    void keysElsewhereAreMoved() throws Exception {
        String key = keyOn(1, "moved");
        int slot = HashSlots.slot(key.getBytes());
        String moved = "-MOVED " + slot + " 127.0.0.1:" + cluster.port(1) + "\r\n";
        assertThat(call(0, "GET", key)).isEqualTo(moved);
        assertThat(call(0, "SET", key, "v")).isEqualTo(moved);
        assertThat(call(2, "DEL", key)).isEqualTo(moved);
        assertThat(call(1, "SET", key, "v")).isEqualTo("+OK\r\n");
        assertThat(call(1, "GET", key)).isEqualTo(bulk("v"));
        // Per node, as in Redis: DBSIZE counts this node's keys.
        assertThat(call(1, "DBSIZE")).isNotEqualTo(":0\r\n");
        assertThat(call(1, "DEL", key)).isEqualTo(":1\r\n");
    }

    @Test
    void keysAnswersWithThisNodesKeysAlone() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            keys.add(keyOn(node, "keys:"));
            assertThat(call(node, "SET", keys.get(node), "v")).isEqualTo("+OK\r\n");
        }
        for (int node = 0; node < 3; node++) {
            // KEYS takes no key, so no MOVED: it runs on every node, over that node's keys.
            assertThat(call(node, "KEYS", "keys:*")).isEqualTo("*1\r\n" + bulk(keys.get(node)));
        }
        for (int node = 0; node < 3; node++) {
            assertThat(call(node, "DEL", keys.get(node))).isEqualTo(":1\r\n");
        }
        assertThat(call(1, "KEYS", "keys:*")).isEqualTo("*0\r\n");
    }

    @Test
    void keysOfTwoSlotsAreRefused() throws Exception {
        String cross = "-CROSSSLOT Keys in request don't hash to the same slot\r\n";
        assertThat(call(0, "MGET", "a", "b")).isEqualTo(cross);
        assertThat(call(0, "MSET", "a", "1", "b", "2")).isEqualTo(cross);
        assertThat(call(0, "DEL", "a", "b")).isEqualTo(cross);
        assertThat(call(0, "EXISTS", "a", "b")).isEqualTo(cross);
    }

    @Test
    void readOnlyReadWriteAndAsking() throws Exception {
        assertThat(call(0, "READONLY")).isEqualTo("+OK\r\n");
        assertThat(call(0, "READWRITE")).isEqualTo("+OK\r\n");
        assertThat(call(0, "ASKING")).isEqualTo("+OK\r\n");
    }

    @Test
    void errors() throws Exception {
        assertThat(call(0, "CLUSTER", "FOO"))
                .isEqualTo("-ERR unknown subcommand 'FOO'. Try CLUSTER HELP.\r\n");
        assertThat(call(0, "CLUSTER", "KEYSLOT"))
                .isEqualTo("-ERR wrong number of arguments for 'cluster|keyslot' command\r\n");
        assertThat(call(0, "CLUSTER"))
                .isEqualTo("-ERR wrong number of arguments for 'cluster' command\r\n");
        assertThat(call(0, "CLUSTER", "COUNTKEYSINSLOT", "99999"))
                .isEqualTo("-ERR Invalid slot\r\n");
        assertThat(call(0, "CLUSTER", "COUNTKEYSINSLOT", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(call(0, "CLUSTER", "GETKEYSINSLOT", "1", "-1"))
                .isEqualTo("-ERR Invalid slot or number of keys\r\n");
        assertThat(call(0, "CLUSTER", "SETSLOT", "x", "NODE", IDS.get(0)))
                .isEqualTo("-ERR Invalid or out of range slot\r\n");
        assertThat(call(0, "CLUSTER", "SETSLOT", "1", "FOO"))
                .isEqualTo(
                        "-ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER"
                                + " HELP\r\n");
        assertThat(call(0, "CLUSTER", "SETSLOT", "1", "NODE", "abc"))
                .isEqualTo("-ERR Unknown node abc\r\n");
        assertThat(call(0, "CLUSTER", "SETSLOT", "1", "IMPORTING", IDS.get(1)))
                .isEqualTo("-ERR I'm already the owner of hash slot 1\r\n");
        assertThat(call(1, "CLUSTER", "SETSLOT", "1", "MIGRATING", IDS.get(2)))
                .isEqualTo("-ERR I'm not the owner of hash slot 1\r\n");
        assertThat(call(0, "MIGRATE", "127.0.0.1", "" + cluster.port(1), "nokey", "0", "10"))
                .isEqualTo("+NOKEY\r\n");
        assertThat(call(0, "MIGRATE", "127.0.0.1", "1", "k", "1", "10"))
                .isEqualTo("-ERR dbf0 has one database: destination-db must be 0\r\n");
        assertThat(call(0, "CLUSTER", "MEET", "127.0.0.1", "" + cluster.port(2)))
                .isEqualTo("+OK\r\n");
        assertThat(call(0, "CLUSTER", "MEET", "10.0.0.1", "1"))
                .startsWith("-ERR dbf0 has no cluster bus");
        assertThat(call(2, "CLUSTER", "BUMPEPOCH")).isEqualTo("+STILL 3\r\n");
        String key = keyOn(0, "restore");
        assertThat(call(2, "DBF0-RESTORE", "REPLACE", key, "v"))
                .isEqualTo(
                        "-ERR slot "
                                + HashSlots.slot(key.getBytes())
                                + " is neither served nor imported here\r\n");
    }
}
