package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.MapStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Every RESP command's reply, byte for byte, errors included, one command at a time through one
 * session (so later commands see what earlier ones stored). Small limits put the key, value and
 * MGET reply bounds a few bytes away. Written against the one-switch RespSession before the
 * commands moved to a class each, so that the move can be checked to change no byte.
 */
class RespRepliesTest {

    static final String WRONG = "-ERR wrong number of arguments for '%s' command\r\n";
    static final String NO_AUTH =
            "-ERR dbf0 has no authentication: it has no users or passwords, so AUTH cannot "
                    + "succeed; connect without credentials\r\n";
    static final String MULTI_REFUSED =
            "-ERR MULTI is refused: dbf0 has no transactions. Nothing up to the next "
                    + "EXEC or DISCARD will run\r\n";
    static final String NOT_RUN =
            "-ERR not run: this connection's MULTI was refused (dbf0 has no transactions); "
                    + "EXEC or DISCARD ends the transaction\r\n";
    static final String EXEC_ABORT =
            "-EXECABORT Transaction discarded because MULTI was refused: dbf0 has no "
                    + "transactions; nothing of it ran\r\n";
    static final String VERSION = "7.0.0-dbf0";

    /** HELLO's seven fields after the header; RESP2 and RESP3 differ only in the header. */
    static String helloFields(int proto, long id) {
        return bulk("server")
                + bulk("dbf0")
                + bulk("version")
                + bulk(VERSION)
                + bulk("proto")
                + ":"
                + proto
                + "\r\n"
                + bulk("id")
                + ":"
                + id
                + "\r\n"
                + bulk("mode")
                + bulk("standalone")
                + bulk("role")
                + bulk("master")
                + bulk("modules")
                + "*0\r\n";
    }

    static String hello2(long id) {
        return "*14\r\n" + helloFields(2, id);
    }

    static String hello3(long id) {
        return "%7\r\n" + helloFields(3, id);
    }

    /** Feeds one command at a time and checks the reply each one adds. */
    static final class Transcript {
        final SessionFeeder feeder;
        int seen;

        Transcript(ProtocolLimits limits) {
            ServerOptions options = ServerOptions.defaults().withLimits(limits);
            feeder =
                    new SessionFeeder(
                            new ProtocolSession(
                                    new ServerContext(
                                            new MapStore(
                                                    new ConcurrentHashMap<
                                                            ByteArrayWrapper, ByteArrayWrapper>()),
                                            options)));
        }

        ByteSession.Next expect(String command, String reply) throws Exception {
            byte[] bytes = command.getBytes(StandardCharsets.UTF_8);
            ByteSession.Next next = feeder.feed(bytes, 0, bytes.length);
            String all = new String(feeder.output.toByteArray(), StandardCharsets.UTF_8);
            assertThat(all.substring(seen))
                    .as("reply to %s", command.replace("\r\n", " "))
                    .isEqualTo(reply);
            seen = all.length();
            return next;
        }
    }

    static String cmd(String... args) {
        return RespSessionTest.cmd(args);
    }

    static String bulk(String s) {
        return "$" + s.getBytes(StandardCharsets.UTF_8).length + "\r\n" + s + "\r\n";
    }

    static String[] concat(String[] a, String[] b) {
        String[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    static String[] repeat(String command, String arg, int times) {
        String[] args = new String[times + 1];
        args[0] = command;
        java.util.Arrays.fill(args, 1, args.length, arg);
        return args;
    }

    @Test
    void everyCommandAndEveryErrorByteForByte() throws Exception {
        Transcript t = new Transcript(new ProtocolLimits(8, 16, 256, 4));
        t.expect(cmd("PING"), "+PONG\r\n");
        t.expect(cmd("ping", "hi"), bulk("hi"));
        t.expect(cmd("PING", "a", "b"), WRONG.formatted("ping"));
        t.expect(cmd("pInG"), "+PONG\r\n");
        // Names fold to upper case as Java's Locale.ROOT does, so a dotless i matches too.
        t.expect(cmd("p\u0131ng"), "+PONG\r\n");
        t.expect(cmd("ECHO"), WRONG.formatted("echo"));
        t.expect(cmd("ECHO", "a", "b"), WRONG.formatted("echo"));
        t.expect(cmd("echo", ""), bulk(""));
        t.expect(cmd("GET"), WRONG.formatted("get"));
        t.expect(cmd("GET", "a", "b"), WRONG.formatted("get"));
        t.expect(cmd("SET"), WRONG.formatted("set"));
        t.expect(cmd("SET", "a"), WRONG.formatted("set"));
        t.expect(
                cmd("SET", "a", "1", "ex", "10"),
                "-ERR syntax error: dbf0 supports plain SET key value, without options such as"
                        + " EX\r\n");
        t.expect(cmd("SET", "123456789", "v"), "-ERR key of 9 bytes exceeds the 8-byte limit\r\n");
        t.expect(cmd("SET", "a", "1"), "+OK\r\n");
        t.expect(cmd("set", "b", "22"), "+OK\r\n");
        t.expect(cmd("GET", "a"), bulk("1"));
        t.expect(cmd("GET", "x"), "$-1\r\n");
        t.expect(cmd("DEL"), WRONG.formatted("del"));
        t.expect(cmd("EXISTS"), WRONG.formatted("exists"));
        t.expect(cmd("MGET"), WRONG.formatted("mget"));
        t.expect(cmd("MSET"), WRONG.formatted("mset"));
        t.expect(cmd("MSET", "a"), WRONG.formatted("mset"));
        t.expect(cmd("MSET", "a", "1", "b"), WRONG.formatted("mset"));
        t.expect(
                cmd("MSET", "c", "3", "123456789", "v"),
                "-ERR key of 9 bytes exceeds the 8-byte limit\r\n");
        t.expect(cmd("EXISTS", "c"), ":0\r\n");
        t.expect(cmd("MSET", "c", "3", "d", "4"), "+OK\r\n");
        t.expect(cmd("EXISTS", "a", "a", "x"), ":2\r\n");
        t.expect(cmd("DEL", "a", "a", "x"), ":1\r\n");
        t.expect(cmd("DBSIZE"), ":3\r\n");
        t.expect(cmd("DBSIZE", "extra"), ":3\r\n");
        t.expect(cmd("MGET", "b", "x", "c"), "*3\r\n" + bulk("22") + "$-1\r\n" + bulk("3"));
        String sixteen = "0123456789abcdef";
        t.expect(cmd("SET", "big", sixteen), "+OK\r\n");
        t.expect(cmd(repeat("MGET", "big", 10)), "*10\r\n" + bulk(sixteen).repeat(10)); // 235 bytes
        t.expect(
                cmd(repeat("MGET", "big", 11)),
                "-ERR MGET reply would exceed 256 bytes; ask for fewer keys at a time\r\n"); // 258
        // bytes
        t.expect(cmd("CONFIG"), "-ERR dbf0 supports only CONFIG GET parameter\r\n");
        t.expect(cmd("CONFIG", "GET"), "-ERR dbf0 supports only CONFIG GET parameter\r\n");
        t.expect(
                cmd("CONFIG", "SET", "save", ""),
                "-ERR dbf0 supports only CONFIG GET parameter\r\n");
        String maxclients = Integer.toString(ServerOptions.defaults().maxConnections());
        t.expect(
                cmd(
                        "config",
                        "get",
                        "save",
                        "appendonly",
                        "databases",
                        "maxclients",
                        "nope",
                        "SAVE"),
                "*8\r\n"
                        + bulk("save")
                        + bulk("")
                        + bulk("appendonly")
                        + bulk("no")
                        + bulk("databases")
                        + bulk("1")
                        + bulk("maxclients")
                        + bulk(maxclients));
        t.expect(cmd("CONFIG", "GET", "nope"), "*0\r\n");
        t.expect(cmd("COMMAND"), "*0\r\n");
        t.expect(cmd("command", "DOCS", "get"), "*0\r\n");
        String clientSubs =
                " for 'client': dbf0 supports CLIENT SETNAME, GETNAME, ID and SETINFO\r\n";
        t.expect(cmd("CLIENT"), "-ERR unknown subcommand ''" + clientSubs);
        t.expect(cmd("CLIENT", "LIST"), "-ERR unknown subcommand 'list'" + clientSubs);
        t.expect(cmd("client", "setinfo", "lib-name", "x"), "+OK\r\n");
        t.expect(cmd("client", "setinfo", "LIB-VER", "1.0"), "+OK\r\n");
        t.expect(
                cmd("client", "setinfo", "lib-colour", "x"),
                "-ERR Unrecognized option 'lib-colour'\r\n");
        t.expect(cmd("client", "setinfo", "lib-name"), WRONG.formatted("client|setinfo"));
        t.expect(cmd("CLIENT", "GETNAME"), "$-1\r\n");
        t.expect(cmd("CLIENT", "SETNAME", "n"), "+OK\r\n");
        t.expect(cmd("CLIENT", "GETNAME"), bulk("n"));
        t.expect(
                cmd("CLIENT", "SETNAME", "a b"),
                "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
        t.expect(cmd("CLIENT", "SETNAME"), WRONG.formatted("client|setname"));
        t.expect(cmd("CLIENT", "SETNAME", ""), "+OK\r\n");
        t.expect(cmd("CLIENT", "GETNAME"), "$-1\r\n"); // an empty name removes it, as in Redis
        t.expect(cmd("CLIENT", "ID"), ":1\r\n");
        // HELLO refusals change nothing: the connection stays on RESP2 (GET's miss below is $-1).
        t.expect(cmd("HELLO", "4"), "-NOPROTO unsupported protocol version\r\n");
        t.expect(cmd("HELLO", "1"), "-NOPROTO unsupported protocol version\r\n");
        t.expect(
                cmd("HELLO", "three"),
                "-ERR Protocol version is not an integer or out of range\r\n");
        t.expect(cmd("HELLO", "3", "AUTH", "default", "secret"), NO_AUTH);
        t.expect(
                cmd("HELLO", "3", "AUTH", "default"),
                "-ERR Syntax error in HELLO option 'AUTH'\r\n");
        t.expect(cmd("AUTH", "secret"), NO_AUTH);
        t.expect(cmd("AUTH", "user", "secret"), NO_AUTH);
        t.expect(cmd("AUTH"), WRONG.formatted("auth"));
        t.expect(
                cmd("HELLO", "3", "SETNAME", "x y"),
                "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
        t.expect(cmd("HELLO", "3", "LOUDLY"), "-ERR Syntax error in HELLO option 'LOUDLY'\r\n");
        t.expect(cmd("GET", "x"), "$-1\r\n");
        t.expect(cmd("HELLO"), hello2(1));
        t.expect(cmd("hello", "2", "setname", "again"), hello2(1));
        t.expect(cmd("CLIENT", "GETNAME"), bulk("again"));
        // No transactions: MULTI is refused and everything up to EXEC or DISCARD is not run.
        t.expect(cmd("EXEC"), "-ERR EXEC without MULTI\r\n");
        t.expect(cmd("DISCARD"), "-ERR DISCARD without MULTI\r\n");
        t.expect(cmd("MULTI", "now"), WRONG.formatted("multi"));
        t.expect(cmd("WATCH"), WRONG.formatted("watch"));
        t.expect(cmd("WATCH", "a"), "-ERR WATCH is not supported: dbf0 has no transactions\r\n");
        t.expect(cmd("UNWATCH"), "+OK\r\n");
        t.expect(cmd("MULTI"), MULTI_REFUSED);
        t.expect(cmd("SET", "b", "spoiled"), NOT_RUN);
        t.expect(cmd("GET", "b"), NOT_RUN);
        t.expect(cmd("WATCH", "a"), NOT_RUN);
        t.expect(cmd("UNWATCH"), NOT_RUN);
        t.expect(cmd("LPUSH", "l", "x"), NOT_RUN);
        t.expect(cmd("MULTI"), "-ERR MULTI calls can not be nested\r\n");
        t.expect(cmd("EXEC"), EXEC_ABORT);
        t.expect(cmd("GET", "b"), bulk("22"));
        t.expect(cmd("MULTI"), MULTI_REFUSED);
        t.expect(cmd("FLUSHALL"), NOT_RUN);
        t.expect(cmd("DISCARD"), "+OK\r\n");
        t.expect(cmd("DBSIZE"), ":4\r\n");
        String noDb = "-ERR DB index is out of range: dbf0 has only database 0\r\n";
        t.expect(cmd("SELECT"), noDb);
        t.expect(cmd("SELECT", "0"), "+OK\r\n");
        t.expect(cmd("SELECT", "1"), noDb);
        t.expect(cmd("SELECT", "00"), noDb);
        t.expect(cmd("SELECT", "0", "0"), noDb);
        t.expect(cmd("INFO", "keyspace"), bulk("# Keyspace\r\ndb0:keys=4,expires=0,avg_ttl=0\r\n"));
        t.expect(cmd("INFO", "nosuch"), bulk(""));
        t.expect(
                cmd("LPUSH", "l", "x"),
                "-ERR unknown command 'LPUSH', with args beginning with: 'l' 'x' \r\n");
        t.expect(cmd("fooo"), "-ERR unknown command 'fooo', with args beginning with: \r\n");
        t.expect(cmd("FLUSHDB"), "+OK\r\n");
        t.expect(cmd("DBSIZE"), ":0\r\n");
        t.expect(cmd("SET", "a", "1"), "+OK\r\n");
        t.expect(cmd("flushall", "ASYNC"), "+OK\r\n");
        t.expect(cmd("DBSIZE"), ":0\r\n");
        t.expect(cmd("INFO", "keyspace"), bulk("# Keyspace\r\n"));
        assertThat(t.expect(cmd("QUIT", "now"), "+OK\r\n"))
                .isEqualTo(ByteSession.Next.CLOSE_AFTER_WRITE);
    }

    @Test
    void afterHello3TheRepliesThatDifferAreRespThree() throws Exception {
        Transcript t = new Transcript(new ProtocolLimits(8, 16, 256, 4));
        t.expect(cmd("HELLO", "3", "SETNAME", "app"), hello3(1));
        t.expect(cmd("CLIENT", "GETNAME"), bulk("app"));
        t.expect(cmd("HELLO"), hello3(1)); // no version: the current protocol
        t.expect(cmd("HELLO", "4"), "-NOPROTO unsupported protocol version\r\n");
        t.expect(cmd("SET", "a", "1"), "+OK\r\n");
        t.expect(cmd("GET", "a"), bulk("1"));
        t.expect(cmd("GET", "x"), "_\r\n");
        t.expect(cmd("MGET", "a", "x"), "*2\r\n" + bulk("1") + "_\r\n");
        // MGET's bound counts RESP3's 3-byte nulls: ten 23-byte values and seven nulls make 5 + 230
        // + 21 = 256 bytes, which fit (RESP2's nulls would make 270); an eighth null does not.
        String sixteen = "0123456789abcdef";
        t.expect(cmd("SET", "big", sixteen), "+OK\r\n");
        String[] tenBig = repeat("MGET", "big", 10);
        t.expect(
                cmd(concat(tenBig, repeat("x", "x", 6))),
                "*17\r\n" + bulk(sixteen).repeat(10) + "_\r\n".repeat(7));
        t.expect(
                cmd(concat(tenBig, repeat("x", "x", 7))),
                "-ERR MGET reply would exceed 256 bytes; ask for fewer keys at a time\r\n");
        t.expect(
                cmd("CONFIG", "GET", "save", "appendonly"),
                "%2\r\n" + bulk("save") + bulk("") + bulk("appendonly") + bulk("no"));
        t.expect(cmd("CONFIG", "GET", "nope"), "%0\r\n");
        t.expect(cmd("COMMAND", "DOCS"), "%0\r\n");
        t.expect(cmd("COMMAND"), "*0\r\n");
        t.expect(cmd("CLIENT", "SETNAME", ""), "+OK\r\n");
        t.expect(cmd("CLIENT", "GETNAME"), "_\r\n");
        // INFO is a verbatim string: "txt:" and the text, the four counted in the length.
        t.expect(cmd("DEL", "big"), ":1\r\n");
        String keyspace = "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"; // 44 bytes
        t.expect(cmd("INFO", "keyspace"), "=48\r\ntxt:" + keyspace + "\r\n");
        t.expect(cmd("INFO", "nosuch"), "=4\r\ntxt:\r\n");
        // Replies RESP2 and RESP3 share stay as they were.
        t.expect(cmd("PING"), "+PONG\r\n");
        t.expect(cmd("EXISTS", "a", "x"), ":1\r\n");
        t.expect(cmd("DEL", "a"), ":1\r\n");
        t.expect(
                cmd("LPUSH", "l", "x"),
                "-ERR unknown command 'LPUSH', with args beginning with: 'l' 'x' \r\n");
        t.expect(cmd("MULTI"), MULTI_REFUSED);
        t.expect(cmd("GET", "a"), NOT_RUN);
        t.expect(cmd("EXEC"), EXEC_ABORT);
        // HELLO 2 switches back, and its own reply is already RESP2.
        t.expect(cmd("HELLO", "2"), hello2(1));
        t.expect(cmd("GET", "x"), "$-1\r\n");
        t.expect(cmd("MGET", "x"), "*1\r\n$-1\r\n");
        t.expect(cmd("CONFIG", "GET", "save"), "*2\r\n" + bulk("save") + bulk(""));
        t.expect(cmd("INFO", "nosuch"), bulk(""));
    }

    @Test
    void everyConnectionHasItsOwnIdAndProtocol() throws Exception {
        ServerContext context =
                new ServerContext(
                        new MapStore(new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>()),
                        ServerOptions.defaults());
        SessionFeeder first = new SessionFeeder(new ProtocolSession(context));
        SessionFeeder second = new SessionFeeder(new ProtocolSession(context));
        byte[] hello3 = cmd("HELLO", "3").getBytes(StandardCharsets.UTF_8);
        byte[] get = cmd("GET", "x").getBytes(StandardCharsets.UTF_8);
        first.feed(hello3, 0, hello3.length);
        second.feed(get, 0, get.length);
        first.feed(get, 0, get.length);
        assertThat(new String(first.output.toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo(hello3(1) + "_\r\n");
        assertThat(new String(second.output.toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("$-1\r\n");
    }

    @Test
    void aValueOverTheLimitIsRefusedWhenKeysMayBeLonger() throws Exception {
        // Values over the limit are stopped by the parser's bulk bound unless keys may be longer.
        Transcript t = new Transcript(new ProtocolLimits(16, 8, 256, 4));
        t.expect(
                cmd("SET", "k", "123456789"), "-ERR value of 9 bytes exceeds the 8-byte limit\r\n");
        t.expect(
                cmd("MSET", "a", "1", "k", "123456789"),
                "-ERR value of 9 bytes exceeds the 8-byte limit\r\n");
        t.expect(cmd("EXISTS", "a", "k"), ":0\r\n");
    }
}
