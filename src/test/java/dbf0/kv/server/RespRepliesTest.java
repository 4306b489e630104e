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

  /** Feeds one command at a time and checks the reply each one adds. */
  static final class Transcript {
    final SessionFeeder feeder;
    int seen;

    Transcript(ProtocolLimits limits) {
      ServerOptions options = ServerOptions.defaults().withLimits(limits);
      feeder = new SessionFeeder(new ProtocolSession(
          new ServerContext(new MapStore(new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>()), options)));
    }

    ByteSession.Next expect(String command, String reply) throws Exception {
      byte[] bytes = command.getBytes(StandardCharsets.UTF_8);
      ByteSession.Next next = feeder.feed(bytes, 0, bytes.length);
      String all = new String(feeder.output.toByteArray(), StandardCharsets.UTF_8);
      assertThat(all.substring(seen)).as("reply to %s", command.replace("\r\n", " ")).isEqualTo(reply);
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
    t.expect(cmd("SET", "a", "1", "ex", "10"),
        "-ERR syntax error: dbf0 supports plain SET key value, without options such as EX\r\n");
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
    t.expect(cmd("MSET", "c", "3", "123456789", "v"), "-ERR key of 9 bytes exceeds the 8-byte limit\r\n");
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
    t.expect(cmd(repeat("MGET", "big", 11)),
        "-ERR MGET reply would exceed 256 bytes; ask for fewer keys at a time\r\n"); // 258 bytes
    t.expect(cmd("CONFIG"), "-ERR dbf0 supports only CONFIG GET parameter\r\n");
    t.expect(cmd("CONFIG", "GET"), "-ERR dbf0 supports only CONFIG GET parameter\r\n");
    t.expect(cmd("CONFIG", "SET", "save", ""), "-ERR dbf0 supports only CONFIG GET parameter\r\n");
    String maxclients = Integer.toString(ServerOptions.defaults().maxConnections());
    t.expect(cmd("config", "get", "save", "appendonly", "databases", "maxclients", "nope", "SAVE"),
        "*8\r\n" + bulk("save") + bulk("") + bulk("appendonly") + bulk("no") + bulk("databases") + bulk("1")
            + bulk("maxclients") + bulk(maxclients));
    t.expect(cmd("CONFIG", "GET", "nope"), "*0\r\n");
    t.expect(cmd("COMMAND"), "*0\r\n");
    t.expect(cmd("command", "DOCS", "get"), "*0\r\n");
    t.expect(cmd("CLIENT"), "-ERR unknown subcommand '' for 'client': dbf0 supports CLIENT SETNAME and SETINFO\r\n");
    t.expect(cmd("CLIENT", "LIST"),
        "-ERR unknown subcommand 'list' for 'client': dbf0 supports CLIENT SETNAME and SETINFO\r\n");
    t.expect(cmd("client", "setinfo", "lib-name", "x"), "+OK\r\n");
    t.expect(cmd("CLIENT", "SETNAME", "n"), "+OK\r\n");
    String noproto = "-NOPROTO dbf0 speaks RESP2 only: RESP3 (HELLO) is not supported, use the default protocol\r\n";
    t.expect(cmd("HELLO"), noproto);
    t.expect(cmd("HELLO", "3"), noproto);
    String noDb = "-ERR DB index is out of range: dbf0 has only database 0\r\n";
    t.expect(cmd("SELECT"), noDb);
    t.expect(cmd("SELECT", "0"), "+OK\r\n");
    t.expect(cmd("SELECT", "1"), noDb);
    t.expect(cmd("SELECT", "00"), noDb);
    t.expect(cmd("SELECT", "0", "0"), noDb);
    t.expect(cmd("INFO", "keyspace"), bulk("# Keyspace\r\ndb0:keys=4,expires=0,avg_ttl=0\r\n"));
    t.expect(cmd("INFO", "nosuch"), bulk(""));
    t.expect(cmd("LPUSH", "l", "x"), "-ERR unknown command 'LPUSH', with args beginning with: 'l' 'x' \r\n");
    t.expect(cmd("fooo"), "-ERR unknown command 'fooo', with args beginning with: \r\n");
    t.expect(cmd("FLUSHDB"), "+OK\r\n");
    t.expect(cmd("DBSIZE"), ":0\r\n");
    t.expect(cmd("SET", "a", "1"), "+OK\r\n");
    t.expect(cmd("flushall", "ASYNC"), "+OK\r\n");
    t.expect(cmd("DBSIZE"), ":0\r\n");
    t.expect(cmd("INFO", "keyspace"), bulk("# Keyspace\r\n"));
    assertThat(t.expect(cmd("QUIT", "now"), "+OK\r\n")).isEqualTo(ByteSession.Next.CLOSE_AFTER_WRITE);
  }

  @Test
  void aValueOverTheLimitIsRefusedWhenKeysMayBeLonger() throws Exception {
    // Values over the limit are stopped by the parser's bulk bound unless keys may be longer.
    Transcript t = new Transcript(new ProtocolLimits(16, 8, 256, 4));
    t.expect(cmd("SET", "k", "123456789"), "-ERR value of 9 bytes exceeds the 8-byte limit\r\n");
    t.expect(cmd("MSET", "a", "1", "k", "123456789"), "-ERR value of 9 bytes exceeds the 8-byte limit\r\n");
    t.expect(cmd("EXISTS", "a", "k"), ":0\r\n");
  }
}
