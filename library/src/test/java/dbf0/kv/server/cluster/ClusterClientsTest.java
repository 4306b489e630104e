package dbf0.kv.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.cluster.HashSlots;
import dbf0.kv.cluster.SlotMap;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;

/**
 * The Java cluster clients people use, each with its defaults and given one node only: Jedis's
 * {@code RedisClusterClient} (the cluster client of Jedis 8), its classic {@code JedisCluster}, and
 * Lettuce's {@code RedisClusterClient}. Each writes thousands of keys spread over all three nodes,
 * reads them back, and does MSET/MGET over keys that share a hash tag. Each test uses keys of its
 * own.
 */
@Timeout(60)
class ClusterClientsTest {

    private static final int KEYS = 3_000;

    private static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new LocalCluster(3);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void jedisWritesAndReadsBackKeysOnEveryNode() {
        try (redis.clients.jedis.RedisClusterClient jedis =
                redis.clients.jedis.RedisClusterClient.create(
                        Set.of(new HostAndPort("127.0.0.1", cluster.port(0))))) {
            for (int i = 0; i < KEYS; i++) {
                jedis.set("jedis:" + i, "v" + i);
            }
            for (int i = 0; i < KEYS; i++) {
                assertThat(jedis.get("jedis:" + i)).isEqualTo("v" + i);
            }
            assertThat(nodesHolding("jedis:")).isEqualTo(3);
            for (int user = 0; user < 50; user++) {
                String tag = "{jedis-user" + user + "}";
                jedis.mset(tag + ":a", "a" + user, tag + ":b", "b" + user, tag + ":c", "c" + user);
                assertThat(jedis.mget(tag + ":a", tag + ":b", tag + ":c", tag + ":none"))
                        .containsExactly("a" + user, "b" + user, "c" + user, null);
            }
        }
    }

    @Test
    @SuppressWarnings("deprecation") // Jedis 8 deprecates it for RedisClusterClient; code uses it
    void jedisClusterTheClassicClassWritesAndReadsBack() {
        try (redis.clients.jedis.JedisCluster jedis =
                new redis.clients.jedis.JedisCluster(
                        Set.of(new HostAndPort("127.0.0.1", cluster.port(2))))) {
            for (int i = 0; i < KEYS; i++) {
                jedis.set("classic:" + i, "v" + i);
            }
            for (int i = 0; i < KEYS; i++) {
                assertThat(jedis.get("classic:" + i)).isEqualTo("v" + i);
            }
            assertThat(nodesHolding("classic:")).isEqualTo(3);
            jedis.mset("{classic}:a", "1", "{classic}:b", "2");
            assertThat(jedis.mget("{classic}:a", "{classic}:b")).containsExactly("1", "2");
        }
    }

    @Test
    void lettuceWritesAndReadsBackKeysOnEveryNode() {
        RedisClusterClient client =
                RedisClusterClient.create(RedisURI.create("127.0.0.1", cluster.port(1)));
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            RedisAdvancedClusterCommands<String, String> sync = connection.sync();
            for (int i = 0; i < KEYS; i++) {
                assertThat(sync.set("lettuce:" + i, "v" + i)).isEqualTo("OK");
            }
            for (int i = 0; i < KEYS; i++) {
                assertThat(sync.get("lettuce:" + i)).isEqualTo("v" + i);
            }
            assertThat(nodesHolding("lettuce:")).isEqualTo(3);
            for (int user = 0; user < 50; user++) {
                String tag = "{lettuce-user" + user + "}";
                Map<String, String> values = new LinkedHashMap<>();
                values.put(tag + ":a", "a" + user);
                values.put(tag + ":b", "b" + user);
                assertThat(sync.mset(values)).isEqualTo("OK");
                List<String> got = new ArrayList<>();
                for (KeyValue<String, String> kv : sync.mget(tag + ":a", tag + ":b", tag + ":x")) {
                    got.add(kv.getValueOrElse(null));
                }
                assertThat(got).containsExactly("a" + user, "b" + user, null);
            }
            // Lettuce splits an MGET without a common tag by slot and asks each node in turn.
            List<String> spread = new ArrayList<>();
            for (KeyValue<String, String> kv : sync.mget("lettuce:1", "lettuce:2", "lettuce:3")) {
                spread.add(kv.getValue());
            }
            assertThat(spread).containsExactly("v1", "v2", "v3");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void commandListsTheKeyedCommandsWithTheirKeyPositions() throws Exception {
        try (RawResp c = new RawResp(cluster.port(2))) {
            String table = c.call("COMMAND");
            assertThat(table)
                    .startsWith(
                            "*6\r\n*7\r\n$3\r\nget\r\n:2\r\n*1\r\n+readonly\r\n"
                                    + ":1\r\n:1\r\n:1\r\n*0\r\n")
                    .endsWith(
                            "*7\r\n$4\r\nmset\r\n:-3\r\n*1\r\n+write\r\n"
                                    + ":1\r\n:-1\r\n:2\r\n*0\r\n");
            assertThat(c.call("COMMAND", "DOCS")).isEqualTo("*0\r\n");
        }
    }

    /** How many nodes own at least one of the keys {@code prefix + i}, by their slots. */
    private static int nodesHolding(String prefix) {
        SlotMap map = SlotMap.evenSplit(cluster.nodes);
        Set<Integer> owners = new HashSet<>();
        for (int i = 0; i < KEYS; i++) {
            owners.add(map.owner(HashSlots.slot((prefix + i).getBytes(StandardCharsets.UTF_8))));
        }
        return owners.size();
    }
}
