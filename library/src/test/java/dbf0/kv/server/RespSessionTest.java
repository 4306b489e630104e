package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.storage.MapBackends;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RESP commands through the protocol dispatcher, as raw bytes in and out. */
@Timeout(30)
class RespSessionTest {

    static String run(ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper> map, String input)
            throws Exception {
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(map));
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        feeder.feed(bytes, 0, bytes.length);
        return new String(feeder.output.toByteArray(), StandardCharsets.UTF_8);
    }

    static String cmd(String... args) {
        StringBuilder s = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            s.append('$')
                    .append(a.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(a)
                    .append("\r\n");
        }
        return s.toString();
    }

    @Test
    void commandsAnswerLikeRedis() throws Exception {
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        String out =
                run(
                        map,
                        cmd("PING")
                                + cmd("PING", "hi")
                                + cmd("ECHO", "e")
                                + cmd("SET", "a", "1")
                                + cmd("GET", "a")
                                + cmd("GET", "nope")
                                + cmd("MSET", "b", "2", "c", "3")
                                + cmd("MGET", "a", "x", "c")
                                + cmd("EXISTS", "a", "b", "x")
                                + cmd("DBSIZE")
                                + cmd("DEL", "a", "b", "x")
                                + cmd("DBSIZE")
                                + cmd("SELECT", "0")
                                + cmd("CLIENT", "SETNAME", "n")
                                + cmd("CONFIG", "GET", "save")
                                + cmd("COMMAND", "DOCS")
                                + cmd("FLUSHALL")
                                + cmd("DBSIZE"));
        assertThat(out)
                .isEqualTo(
                        "+PONG\r\n"
                                + "$2\r\n"
                                + "hi\r\n"
                                + "$1\r\n"
                                + "e\r\n"
                                + "+OK\r\n"
                                + "$1\r\n"
                                + "1\r\n"
                                + "$-1\r\n"
                                + "+OK\r\n"
                                + "*3\r\n"
                                + "$1\r\n"
                                + "1\r\n"
                                + "$-1\r\n"
                                + "$1\r\n"
                                + "3\r\n"
                                + ":2\r\n"
                                + ":3\r\n"
                                + ":2\r\n"
                                + ":1\r\n"
                                + "+OK\r\n"
                                + "+OK\r\n"
                                + "*2\r\n"
                                + "$4\r\n"
                                + "save\r\n"
                                + "$0\r\n\r\n"
                                + "*0\r\n"
                                + "+OK\r\n"
                                + ":0\r\n");
    }

    @Test
    void unsupportedThingsAreErrorsAndTheSessionGoesOn() throws Exception {
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        String out =
                run(
                        map,
                        cmd("SET", "a", "1", "EX", "10")
                                + cmd("HELLO", "4")
                                + cmd("SELECT", "1")
                                + cmd("LPUSH", "l", "x")
                                + cmd("GET")
                                + cmd("PING"));
        String[] lines = out.split("\r\n");
        assertThat(lines[0]).startsWith("-ERR syntax error").contains("EX");
        assertThat(lines[1]).isEqualTo("-NOPROTO unsupported protocol version");
        assertThat(lines[2]).startsWith("-ERR DB index is out of range");
        assertThat(lines[3])
                .isEqualTo("-ERR unknown command 'LPUSH', with args beginning with: 'l' 'x' ");
        assertThat(lines[4]).isEqualTo("-ERR wrong number of arguments for 'get' command");
        assertThat(lines[5]).isEqualTo("+PONG");
        assertThat(map).isEmpty(); // the SET with options did not half-happen
    }

    @Test
    void whatClientLibrariesSendOnConnectingIsAnswered() throws Exception {
        // As captured from redis-py 8.1.0, Jedis 8.0.2 (RedisClient) and Lettuce 7.7.0
        // (docs/protocol.md).
        String out =
                run(
                        new ConcurrentHashMap<>(),
                        cmd("HELLO", "3")
                                + cmd(
                                        "CLIENT",
                                        "MAINT_NOTIFICATIONS",
                                        "ON",
                                        "moving-endpoint-type",
                                        "internal-ip")
                                + cmd("CLIENT", "SETINFO", "LIB-NAME", "redis-py")
                                + cmd("CLIENT", "SETINFO", "lib-ver", "7.7.0.RELEASE/1960d49")
                                + cmd("GET", "nope"));
        assertThat(out)
                .startsWith("%7\r\n$6\r\nserver\r\n$4\r\ndbf0\r\n")
                .contains("$5\r\nproto\r\n:3\r\n")
                .endsWith(
                        "-ERR dbf0 sends no maintenance notifications: it never moves or fails over"
                                + " (CLIENT MAINT_NOTIFICATIONS is not supported)\r\n"
                                + "+OK\r\n"
                                + "+OK\r\n"
                                + "_\r\n");
    }

    @Test
    void aPipelinedTransactionAppliesNothingWhateverTheSplit() throws Exception {
        // MULTI, two writes and EXEC in one write, as redis-py and Jedis send a transaction; then a
        // GET after it, which runs: the connection is back to normal once EXEC has answered.
        byte[] bytes =
                (cmd("SET", "k", "before")
                                + cmd("MULTI")
                                + cmd("SET", "k", "in-tx")
                                + cmd("DEL", "k")
                                + cmd("EXEC")
                                + cmd("GET", "k"))
                        .getBytes(StandardCharsets.UTF_8);
        for (int split = 0; split <= bytes.length; split++) {
            var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
            SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(map));
            String[] replies =
                    new String(feeder.feedSplit(bytes, split), StandardCharsets.UTF_8)
                            .split("\r\n");
            assertThat(replies).as("split at %d", split).hasSize(7);
            assertThat(replies[0]).isEqualTo("+OK");
            assertThat(replies[1]).startsWith("-ERR MULTI is refused");
            assertThat(replies[2]).startsWith("-ERR not run");
            assertThat(replies[3]).startsWith("-ERR not run");
            assertThat(replies[4]).startsWith("-EXECABORT");
            assertThat(replies[5] + replies[6]).isEqualTo("$6before");
            assertThat(map)
                    .containsOnlyKeys(new ByteArrayWrapper("k".getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void quitStillClosesInsideARefusedTransaction() throws Exception {
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        byte[] bytes = (cmd("MULTI") + cmd("QUIT") + cmd("PING")).getBytes(StandardCharsets.UTF_8);
        assertThat(feeder.feed(bytes, 0, bytes.length))
                .isEqualTo(ByteSession.Next.CLOSE_AFTER_WRITE);
        assertThat(new String(feeder.output.toByteArray(), StandardCharsets.UTF_8))
                .endsWith("\r\n+OK\r\n");
    }

    @Test
    void infoHasTheFourSections() throws Exception {
        String out = run(new ConcurrentHashMap<>(), cmd("INFO"));
        assertThat(out)
                .startsWith("$")
                .contains("# Server")
                .contains("# Clients")
                .contains("# Memory")
                .contains("# Stats")
                .contains("connected_clients:")
                .contains("total_commands_processed:");
    }

    @Test
    void quitRepliesThenCloses() throws Exception {
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        byte[] bytes = (cmd("QUIT") + cmd("PING")).getBytes(StandardCharsets.UTF_8);
        assertThat(feeder.feed(bytes, 0, bytes.length))
                .isEqualTo(ByteSession.Next.CLOSE_AFTER_WRITE);
        assertThat(new String(feeder.output.toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("+OK\r\n");
    }

    @Test
    void splitAtEveryBoundaryGivesTheSameReplies() throws Exception {
        byte[] bytes =
                (cmd("SET", "k", "value") + cmd("GET", "k") + "PING\r\n")
                        .getBytes(StandardCharsets.UTF_8);
        for (int split = 0; split <= bytes.length; split++) {
            SessionFeeder feeder =
                    new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
            assertThat(new String(feeder.feedSplit(bytes, split), StandardCharsets.UTF_8))
                    .as("split at %d", split)
                    .isEqualTo("+OK\r\n$5\r\nvalue\r\n+PONG\r\n");
        }
    }

    @Test
    void protocolErrorRepliesThenCloses() {
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        byte[] bytes = "*1\r\n$99999999999\r\n".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> feeder.feed(bytes, 0, bytes.length))
                .isInstanceOf(ProtocolException.class);
        assertThat(new String(feeder.output.toByteArray(), StandardCharsets.UTF_8))
                .startsWith("-ERR Protocol error");
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void keysAreSharedBetweenRespAndV2(ServerModel model) throws Exception {
        try (KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(model).withThreads(2),
                        MapBackends.create("concurrent"))) {
            server.start();
            try (Socket resp = V1.connect(server.getLocalAddress());
                    KeyValueClient v2 = KeyValueClient.connect(server.getLocalAddress())) {
                resp.getOutputStream()
                        .write(cmd("SET", "shared", "from-resp").getBytes(StandardCharsets.UTF_8));
                InputStream in = resp.getInputStream();
                assertThat(new String(in.readNBytes(5), StandardCharsets.UTF_8))
                        .isEqualTo("+OK\r\n");
                assertThat(v2.get(new ByteArrayWrapper("shared".getBytes(StandardCharsets.UTF_8))))
                        .isEqualTo(
                                new ByteArrayWrapper("from-resp".getBytes(StandardCharsets.UTF_8)));
                v2.set(
                        new ByteArrayWrapper("other".getBytes(StandardCharsets.UTF_8)),
                        new ByteArrayWrapper("from-v2".getBytes(StandardCharsets.UTF_8)));
                resp.getOutputStream().write(cmd("GET", "other").getBytes(StandardCharsets.UTF_8));
                assertThat(new String(in.readNBytes(13), StandardCharsets.UTF_8))
                        .isEqualTo("$7\r\nfrom-v2\r\n");
            }
        }
    }
}
