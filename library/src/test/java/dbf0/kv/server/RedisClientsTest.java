package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.storage.MapBackends;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Jedis 8 and Lettuce 7, the two Java Redis clients most used, against a real server on 127.0.0.1,
 * each connected with its defaults: Jedis's RedisClient and Lettuce send HELLO 3 and speak RESP3
 * (Jedis's older {@code new Jedis(host, port)} stays on RESP2 and sends nothing first). Each test
 * uses keys of its own, so they share one server.
 */
@Timeout(60)
class RedisClientsTest {

    private static KeyValueServer server;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(2),
                        MapBackends.create("concurrent"));
        server.start();
        port = server.getLocalAddress().getPort();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static final ProtocolCommand JEDIS_NOSUCH =
            () -> "NOSUCH".getBytes(StandardCharsets.US_ASCII);

    @Test
    void jedisAndLettuceScanEveryKeyOfTheirPattern() {
        Set<String> jedisSeen = new HashSet<>();
        try (RedisClient jedis = RedisClient.create("127.0.0.1", port)) {
            for (int i = 0; i < 100; i++) {
                jedis.set("js:" + i, "v");
            }
            ScanParams params = new ScanParams().match("js:*").count(10);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, params);
                jedisSeen.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        assertThat(jedisSeen).hasSize(100).allMatch(k -> k.startsWith("js:"));

        Set<String> lettuceSeen = new HashSet<>();
        io.lettuce.core.RedisClient client =
                io.lettuce.core.RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> sync = connection.sync();
            ScanArgs args = ScanArgs.Builder.matches("js:1*").limit(5);
            KeyScanCursor<String> page = sync.scan(args);
            lettuceSeen.addAll(page.getKeys());
            while (!page.isFinished()) {
                page = sync.scan(page, args);
                lettuceSeen.addAll(page.getKeys());
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
        assertThat(lettuceSeen).hasSize(11).contains("js:1", "js:10", "js:19");
    }

    @Test
    void jedisRedisClientWithItsDefaults() {
        try (RedisClient jedis = RedisClient.create("127.0.0.1", port)) {
            assertThat(jedis.set("j:a", "1")).isEqualTo("OK");
            assertThat(jedis.get("j:a")).isEqualTo("1");
            assertThat(jedis.get("j:missing")).isNull();
            assertThat(jedis.mset("j:b", "2", "j:c", "3")).isEqualTo("OK");
            assertThat(jedis.mget("j:a", "j:missing", "j:c")).containsExactly("1", null, "3");
            assertThat(jedis.exists("j:a", "j:b", "j:missing")).isEqualTo(2);
            assertThat(jedis.del("j:a", "j:missing")).isEqualTo(1);
            assertThat(jedis.exists("j:a")).isFalse();

            List<Response<String>> gets = new ArrayList<>();
            try (AbstractPipeline pipeline = jedis.pipelined()) {
                for (int i = 0; i < 500; i++) {
                    pipeline.set("j:p" + i, "v" + i);
                    gets.add(pipeline.get("j:p" + i));
                }
                pipeline.sync();
            }
            for (int i = 0; i < 500; i++) {
                assertThat(gets.get(i).get()).isEqualTo("v" + i);
            }

            assertThatThrownBy(
                            () -> jedis.executeCommand(new CommandArguments(JEDIS_NOSUCH).add("x")))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("unknown command 'NOSUCH'");
            assertThat(jedis.get("j:b")).isEqualTo("2"); // the error left the connection usable
        }
    }

    @Test
    void jedisTransactionIsRefusedAndNothingOfItApplied() {
        try (RedisClient jedis = RedisClient.create("127.0.0.1", port)) {
            AbstractTransaction tx = jedis.multi();
            tx.set("jt:a", "1");
            tx.set("jt:b", "2");
            // Jedis sends MULTI and the SETs without waiting, then reads their replies at EXEC.
            assertThatThrownBy(tx::exec)
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("EXECABORT");
            tx.close();
            assertThat(jedis.exists("jt:a", "jt:b")).isZero();
            assertThat(jedis.set("jt:c", "3"))
                    .isEqualTo("OK"); // the connection went back to normal
        }
    }

    @Test
    void jedisClassicConnectionStaysOnResp2() {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            assertThat(jedis.set("jc:a", "1")).isEqualTo("OK");
            assertThat(jedis.get("jc:a")).isEqualTo("1");
            assertThat(jedis.get("jc:missing")).isNull();
            assertThat(jedis.mget("jc:a", "jc:missing")).containsExactly("1", null);
            assertThat(jedis.configGet("save")).containsEntry("save", "");
        }
    }

    private static final ProtocolKeyword LETTUCE_NOSUCH =
            new ProtocolKeyword() {
                @Override
                public byte[] getBytes() {
                    return "NOSUCH".getBytes(StandardCharsets.US_ASCII);
                }

                @Override
                public String toString() {
                    return "NOSUCH";
                }
            };

    @Test
    void lettuceWithItsDefaults() throws Exception {
        io.lettuce.core.RedisClient client =
                io.lettuce.core.RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> sync = connection.sync();
            assertThat(sync.set("l:a", "1")).isEqualTo("OK");
            assertThat(sync.get("l:a")).isEqualTo("1");
            assertThat(sync.get("l:missing")).isNull();
            assertThat(sync.mset(java.util.Map.of("l:b", "2", "l:c", "3"))).isEqualTo("OK");
            assertThat(sync.mget("l:a", "l:missing", "l:c"))
                    .containsExactly(
                            KeyValue.just("l:a", "1"),
                            KeyValue.empty("l:missing"),
                            KeyValue.just("l:c", "3"));
            assertThat(sync.exists("l:a", "l:b", "l:missing")).isEqualTo(2);
            assertThat(sync.del("l:a", "l:missing")).isEqualTo(1);
            assertThat(sync.configGet("save")).containsEntry("save", "");

            // 1,000 commands in one flush, then every reply.
            RedisAsyncCommands<String, String> async = connection.async();
            connection.setAutoFlushCommands(false);
            List<RedisFuture<String>> sets = new ArrayList<>();
            List<RedisFuture<String>> gets = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                sets.add(async.set("l:p" + i, "v" + i));
                gets.add(async.get("l:p" + i));
            }
            connection.flushCommands();
            connection.setAutoFlushCommands(true);
            assertThat(
                            LettuceFutures.awaitAll(
                                    Duration.ofSeconds(30), sets.toArray(new RedisFuture<?>[0])))
                    .isTrue();
            assertThat(
                            LettuceFutures.awaitAll(
                                    Duration.ofSeconds(30), gets.toArray(new RedisFuture<?>[0])))
                    .isTrue();
            for (int i = 0; i < 500; i++) {
                assertThat(sets.get(i).get()).isEqualTo("OK");
                assertThat(gets.get(i).get()).isEqualTo("v" + i);
            }

            assertThatThrownBy(
                            () ->
                                    sync.dispatch(
                                            LETTUCE_NOSUCH,
                                            new StatusOutput<>(StringCodec.UTF8),
                                            new CommandArgs<>(StringCodec.UTF8).add("x")))
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("unknown command 'NOSUCH'");
            assertThat(sync.get("l:b")).isEqualTo("2");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void lettuceTransactionIsRefusedAndNothingOfItApplied() throws Exception {
        io.lettuce.core.RedisClient client =
                io.lettuce.core.RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisAsyncCommands<String, String> async = connection.async();
            // Sent back to back, as a client pipelining a transaction does. Held until all three
            // are queued: Lettuce forgets its transaction when MULTI's error comes back, and a SET
            // queued after that reply arrived would fail inside Lettuce (a race of the client's).
            connection.setAutoFlushCommands(false);
            RedisFuture<String> multi = async.multi();
            RedisFuture<String> set = async.set("lt:a", "1");
            var exec = async.exec();
            connection.flushCommands();
            connection.setAutoFlushCommands(true);
            assertThatThrownBy(() -> multi.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("MULTI is refused");
            assertThatThrownBy(() -> set.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("MULTI was refused");
            assertThatThrownBy(() -> exec.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("EXECABORT");
            RedisCommands<String, String> sync = connection.sync();
            assertThat(sync.exists("lt:a")).isZero();

            // The blocking API: MULTI throws; until DISCARD, nothing runs.
            assertThatThrownBy(sync::multi)
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("MULTI is refused");
            assertThatThrownBy(() -> sync.set("lt:b", "2"))
                    .hasMessageContaining("MULTI was refused");
            assertThat(sync.discard()).isEqualTo("OK");
            assertThat(sync.exists("lt:b")).isZero();
            assertThat(sync.set("lt:c", "3")).isEqualTo("OK");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }
}
