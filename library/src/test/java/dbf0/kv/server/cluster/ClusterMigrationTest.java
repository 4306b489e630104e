package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.cluster.HashSlots;
import dbf0.kv.protocol.ProtocolLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slot moved by hand, step by step as redis-cli's reshard moves it, with every reply checked:
 * IMPORTING and MIGRATING, ASK for a key already gone, TRYAGAIN for a half-moved MGET, ASKING on
 * the target, MIGRATE (BUSYKEY, REPLACE, NOKEY), SETSLOT NODE refused while keys remain, then MOVED
 * everywhere. And a node restarted with its data dir keeps its id and its slot map.
 */
class ClusterMigrationTest {

    static String bulk(String s) {
        return ClusterRepliesTest.bulk(s);
    }

    static String call(LocalCluster cluster, int node, String... args) throws Exception {
        try (RawResp c = new RawResp(cluster.port(node))) {
            return c.call(args);
        }
    }

    static List<String> ids(LocalCluster cluster) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int port : cluster.ports) {
            try (RawResp c = new RawResp(port)) {
                ids.add(c.text("CLUSTER", "MYID"));
            }
        }
        return ids;
    }

    @Test
    void aSlotMovesStepByStep() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3)) {
            List<String> ids = ids(cluster);
            String tag = ClusterRepliesTest.keyOn(0, "m"); // its slot is node 0's
            int slot = HashSlots.slot(tag.getBytes());
            String a = "{" + tag + "}a";
            String b = "{" + tag + "}b";
            String c = "{" + tag + "}c";
            String src = "127.0.0.1:" + cluster.port(0);
            String dst = "127.0.0.1:" + cluster.port(1);
            assertThat(call(cluster, 0, "MSET", a, "1", c, "old")).isEqualTo("+OK\r\n");

            assertThat(call(cluster, 1, "CLUSTER", "SETSLOT", "" + slot, "IMPORTING", ids.get(0)))
                    .isEqualTo("+OK\r\n");
            // A key the target already has: MIGRATE without REPLACE is refused with BUSYKEY.
            try (RawResp target = new RawResp(cluster.port(1))) {
                assertThat(target.call("GET", c)).isEqualTo("-MOVED " + slot + " " + src + "\r\n");
                assertThat(target.call("ASKING")).isEqualTo("+OK\r\n");
                assertThat(target.call("SET", c, "new")).isEqualTo("+OK\r\n");
                assertThat(target.call("GET", c))
                        .as("ASKING is good for one command")
                        .isEqualTo("-MOVED " + slot + " " + src + "\r\n");
            }
            assertThat(call(cluster, 0, "CLUSTER", "SETSLOT", "" + slot, "MIGRATING", ids.get(1)))
                    .isEqualTo("+OK\r\n");
            try (RawResp s = new RawResp(cluster.port(0))) {
                assertThat(s.text("CLUSTER", "NODES"))
                        .contains(" [" + slot + "->-" + ids.get(1) + "]\n");
            }
            try (RawResp t = new RawResp(cluster.port(1))) {
                assertThat(t.text("CLUSTER", "NODES"))
                        .contains(" [" + slot + "-<-" + ids.get(0) + "]\n");
            }
            String ask = "-ASK " + slot + " " + dst + "\r\n";
            assertThat(call(cluster, 0, "GET", a)).isEqualTo(bulk("1"));
            assertThat(call(cluster, 0, "GET", b)).isEqualTo(ask);
            assertThat(call(cluster, 0, "SET", b, "x")).isEqualTo(ask);
            assertThat(call(cluster, 0, "MGET", a, b))
                    .isEqualTo("-TRYAGAIN Multiple keys request during rehashing of slot\r\n");
            assertThat(call(cluster, 0, "CLUSTER", "SETSLOT", "" + slot, "NODE", ids.get(1)))
                    .isEqualTo(
                            "-ERR Can't assign hashslot "
                                    + slot
                                    + " to a different node while I still hold keys for this"
                                    + " hash slot.\r\n");

            String[] migrate = {
                "MIGRATE", "127.0.0.1", "" + cluster.port(1), "", "0", "5000", "KEYS", a, c, b
            };
            assertThat(call(cluster, 0, migrate))
                    .isEqualTo(
                            "-ERR Target instance replied with error: BUSYKEY Target key name"
                                    + " already exists.\r\n");
            assertThat(call(cluster, 0, "CLUSTER", "COUNTKEYSINSLOT", "" + slot))
                    .as("nothing moved")
                    .isEqualTo(":2\r\n");
            String[] replace = {
                "MIGRATE",
                "127.0.0.1",
                "" + cluster.port(1),
                "",
                "0",
                "5000",
                "REPLACE",
                "KEYS",
                a,
                c,
                b
            };
            assertThat(call(cluster, 0, replace)).isEqualTo("+OK\r\n");
            assertThat(call(cluster, 0, "CLUSTER", "COUNTKEYSINSLOT", "" + slot))
                    .isEqualTo(":0\r\n");
            assertThat(call(cluster, 0, replace)).isEqualTo("+NOKEY\r\n");
            assertThat(call(cluster, 0, "GET", a)).isEqualTo(ask);

            for (int node : new int[] {1, 0, 2}) {
                assertThat(call(cluster, node, "CLUSTER", "SETSLOT", "" + slot, "NODE", ids.get(1)))
                        .isEqualTo("+OK\r\n");
            }
            String moved = "-MOVED " + slot + " " + dst + "\r\n";
            assertThat(call(cluster, 0, "GET", a)).isEqualTo(moved);
            assertThat(call(cluster, 2, "GET", a)).isEqualTo(moved);
            assertThat(call(cluster, 1, "MGET", a, c))
                    .isEqualTo("*2\r\n" + bulk("1") + bulk("old"));
            try (RawResp s = new RawResp(cluster.port(0))) {
                assertThat(s.text("CLUSTER", "NODES")).doesNotContain("[");
            }
            try (RawResp t = new RawResp(cluster.port(1))) {
                String nodes = t.text("CLUSTER", "NODES");
                assertThat(nodes)
                        .doesNotContain("[")
                        .contains(" connected " + slot + " 5461-10921\n");
            }
        }
    }

    @Test
    void aRestartedNodeKeepsItsIdAndSlots(@TempDir Path tmp) throws Exception {
        Path[] dirs = new Path[3];
        for (int i = 0; i < 3; i++) {
            dirs[i] = Files.createDirectories(tmp.resolve("node" + i));
        }
        try (LocalCluster cluster = new LocalCluster(3, dirs)) {
            List<String> ids = ids(cluster);
            String key = ClusterRepliesTest.keyOn(0, "kept");
            int slot = HashSlots.slot(key.getBytes());
            for (int node : new int[] {0, 1, 2}) {
                call(cluster, node, "CLUSTER", "SETSLOT", "" + slot, "NODE", ids.get(2));
            }
            assertThat(call(cluster, 2, "SET", key, "v")).isEqualTo("+OK\r\n");
            String slots = call(cluster, 2, "CLUSTER", "SLOTS");
            assertThat(Files.readString(dirs[2].resolve("nodes"))).contains(ids.get(2));

            cluster.restart(2);
            assertThat(ids(cluster)).isEqualTo(ids);
            assertThat(call(cluster, 2, "CLUSTER", "SLOTS")).isEqualTo(slots);
            assertThat(call(cluster, 2, "GET", key)).isEqualTo(bulk("v"));
            assertThat(call(cluster, 0, "GET", key))
                    .isEqualTo("-MOVED " + slot + " 127.0.0.1:" + cluster.port(2) + "\r\n");
        }
    }

    /** More values than half a frame: MIGRATE sends them in several DBF0-RESTORE commands. */
    @Test
    void migrateSendsLargeValuesInBatches() throws Exception {
        ProtocolLimits small = new ProtocolLimits(1024, 8192, 32 * 1024, 1000);
        try (LocalCluster cluster = new LocalCluster(2, null, small)) {
            String tag = ClusterRepliesTest.keyOn(0, "batch");
            int slot = HashSlots.slot(tag.getBytes());
            List<String> migrate =
                    new ArrayList<>(
                            List.of(
                                    "MIGRATE",
                                    "127.0.0.1",
                                    "" + cluster.port(1),
                                    "",
                                    "0",
                                    "5000",
                                    "KEYS"));
            for (int i = 0; i < 10; i++) {
                String key = "{" + tag + "}" + i;
                assertThat(call(cluster, 0, "SET", key, ("" + i).repeat(6000)))
                        .isEqualTo("+OK\r\n");
                migrate.add(key);
            }
            List<String> ids = ids(cluster);
            call(cluster, 1, "CLUSTER", "SETSLOT", "" + slot, "IMPORTING", ids.get(0));
            call(cluster, 0, "CLUSTER", "SETSLOT", "" + slot, "MIGRATING", ids.get(1));
            assertThat(call(cluster, 0, migrate.toArray(String[]::new))).isEqualTo("+OK\r\n");
            assertThat(call(cluster, 0, "CLUSTER", "COUNTKEYSINSLOT", "" + slot))
                    .isEqualTo(":0\r\n");
            assertThat(call(cluster, 1, "CLUSTER", "SETSLOT", "" + slot, "NODE", ids.get(1)))
                    .isEqualTo("+OK\r\n");
            for (int i = 0; i < 10; i++) {
                assertThat(call(cluster, 1, "GET", "{" + tag + "}" + i))
                        .isEqualTo(bulk(("" + i).repeat(6000)));
            }
        }
    }
}
