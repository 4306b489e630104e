package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;

/**
 * Redis's cluster clients fail over with no change: against a shard of three server processes, each
 * writes {@value #BEFORE} keys, the leader is SIGKILLed, and the client keeps writing new keys
 * until {@value #AFTER} more are acknowledged by the new leader, within {@link #FAILOVER}. The
 * clients take turns on one shard: after each failover the killed node starts again on its data dir
 * and rejoins, so the next client meets a shard of three with a new leader. A write that failed may
 * or may not have taken effect and is not counted; every acknowledged one must read back
 * afterwards. Jedis's cluster client (RedisClusterClient, JedisCluster's successor in Jedis 8) with
 * its defaults; Lettuce's with a topology refresh every second (by default it never refreshes, and
 * keeps sending a dead master's slots to it) and a 2 s command timeout; {@code redis-cli -c} once
 * per write.
 */
@Tag("slow") // three child JVMs, and an election per test
@Timeout(300)
class ClientFailoverTest {

    static final int BEFORE = 100;
    static final int AFTER = 30;
    static final Duration FAILOVER = Duration.ofSeconds(60);

    @TempDir static Path dir;

    static ReplicatedProcesses cluster;

    @BeforeAll
    static void startShard() throws Exception {
        cluster = new ReplicatedProcesses(dir);
    }

    @AfterAll
    static void stopShard() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A client as the test drives it. */
    interface Kv {
        void set(String key, String value) throws Exception;

        String get(String key) throws Exception;
    }

    @Test
    void jedisClusterClientFailsOver() throws Exception {
        cluster.awaitLeader(Duration.ofSeconds(60));
        try (redis.clients.jedis.RedisClusterClient jedis =
                redis.clients.jedis.RedisClusterClient.create(nodes(cluster))) {
            failover(
                    "jedis",
                    new Kv() {
                        @Override
                        public void set(String key, String value) {
                            assertThat(jedis.set(key, value)).isEqualTo("OK");
                        }

                        @Override
                        public String get(String key) {
                            return jedis.get(key);
                        }
                    });
        }
    }

    @Test
    void lettuceClusterClientFailsOver() throws Exception {
        RedisClusterClient client =
                RedisClusterClient.create(
                        cluster.ports.stream()
                                .map(
                                        p ->
                                                RedisURI.builder()
                                                        .withHost("127.0.0.1")
                                                        .withPort(p)
                                                        .withTimeout(Duration.ofSeconds(2))
                                                        .build())
                                .toList());
        client.setOptions(
                ClusterClientOptions.builder()
                        .topologyRefreshOptions(
                                ClusterTopologyRefreshOptions.builder()
                                        .enablePeriodicRefresh(Duration.ofSeconds(1))
                                        .build())
                        .build());
        // Lettuce reads the topology once as it connects: from nodes that answer, once a
        // leader is known (child JVMs on a busy machine may take seconds to get there).
        cluster.awaitLeader(Duration.ofSeconds(60));
        try (StatefulRedisClusterConnection<String, String> connection = connect(client)) {
            RedisAdvancedClusterCommands<String, String> sync = connection.sync();
            failover(
                    "lettuce",
                    new Kv() {
                        @Override
                        public void set(String key, String value) {
                            assertThat(sync.set(key, value)).isEqualTo("OK");
                        }

                        @Override
                        public String get(String key) {
                            return sync.get(key);
                        }
                    });
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void redisCliFollowsTheNewLeader() throws Exception {
        assumeTrue(onPath("redis-cli"), "redis-cli not installed: scripts/install-test-tools.sh");
        int[] entry = {0};
        failover(
                "redis-cli",
                new Kv() {
                    @Override
                    public void set(String key, String value) throws Exception {
                        String out = redisCli(entry, "SET", key, value);
                        if (!out.equals("OK")) {
                            throw new IllegalStateException(out);
                        }
                    }

                    @Override
                    public String get(String key) throws Exception {
                        return redisCli(entry, "GET", key);
                    }
                });
    }

    /** Connects, trying again for up to 30 s while the nodes are too slow to answer in time. */
    private static StatefulRedisClusterConnection<String, String> connect(RedisClusterClient client)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return client.connect();
            } catch (io.lettuce.core.RedisConnectionException e) {
                assertThat(System.nanoTime()).as("Lettuce connects: " + e).isLessThan(deadline);
                Thread.sleep(500);
            }
        }
    }

    /**
     * {@code redis-cli -c} against one node, which it asks first and follows from: when that node
     * is the one killed, a user points it at another, as the test does when it cannot connect.
     */
    private static String redisCli(int[] entry, String... command) throws Exception {
        List<String> args =
                new java.util.ArrayList<>(
                        List.of("redis-cli", "-c", "-p", "" + cluster.ports.get(entry[0])));
        args.addAll(List.of(command));
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("redis-cli ran over 20 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (out.contains("Connection refused")) {
            entry[0] = (entry[0] + 1) % cluster.ports.size();
        }
        return out;
    }

    /** Writes, kills the leader, writes on, reads every acknowledged key; then restarts it. */
    private static void failover(String client, Kv kv) throws Exception {
        int leader = cluster.awaitLeader(Duration.ofSeconds(60));
        try {
            Map<String, String> acked = new LinkedHashMap<>();
            int i = 0;
            long until = System.nanoTime() + FAILOVER.toNanos();
            while (acked.size() < BEFORE) {
                write(kv, client + ":before-" + i, "v" + i, acked, until);
                i++;
            }
            cluster.kill(leader);
            long killed = System.nanoTime();
            until = killed + FAILOVER.toNanos();
            int after = 0;
            while (after < AFTER) {
                if (write(kv, client + ":after-" + i, "v" + i, acked, until)) {
                    after++;
                }
                i++;
            }
            int next = cluster.awaitLeader(Duration.ofSeconds(10));
            assertThat(next).isNotEqualTo(leader);
            for (Map.Entry<String, String> e : acked.entrySet()) {
                assertThat(read(kv, e.getKey(), until)).as(e.getKey()).isEqualTo(e.getValue());
            }
        } finally {
            cluster.restart(leader); // the next client meets three nodes again
        }
    }

    /** One write of a new key; true if acknowledged. Fails the test once {@code until} passes. */
    private static boolean write(
            Kv kv, String key, String value, Map<String, String> acked, long until)
            throws InterruptedException {
        try {
            kv.set(key, value);
            acked.put(key, value);
            return true;
        } catch (Exception | AssertionError e) {
            assertThat(System.nanoTime())
                    .as("writes resume within " + FAILOVER + ": " + e)
                    .isLessThan(until);
            Thread.sleep(50);
            return false;
        }
    }

    private static String read(Kv kv, String key, long until) throws InterruptedException {
        while (true) {
            try {
                return kv.get(key);
            } catch (Exception e) {
                assertThat(System.nanoTime()).as("reads resume: " + e).isLessThan(until);
                Thread.sleep(50);
            }
        }
    }

    private static Set<HostAndPort> nodes(ReplicatedProcesses cluster) {
        return Set.copyOf(
                cluster.ports.stream().map(p -> new HostAndPort("127.0.0.1", p)).toList());
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null
                && java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
                        .anyMatch(d -> java.nio.file.Files.isExecutable(Path.of(d, program)));
    }
}
