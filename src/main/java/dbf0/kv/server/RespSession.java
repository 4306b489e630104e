package dbf0.kv.server;

import dbf0.base.server.ByteSession;
import dbf0.base.server.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.RateLimitedLog;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.Resp;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * The Redis protocol (RESP2) on the server, so that redis-cli, redis-benchmark and Redis client
 * libraries can drive dbf0. Keys and values are the same byte arrays v1 and v2 use: a key set
 * over RESP is visible over v2 and the other way round.
 *
 * <p>Only what a key/value store of byte strings can honestly do is implemented. SET with
 * options (EX, NX, ...) answers an error instead of silently ignoring them; any other command
 * answers {@code -ERR unknown command} and the connection stays open. A malformed or
 * over-limit request gets {@code -ERR Protocol error} and the connection is closed, since its
 * framing can no longer be trusted.
 */
final class RespSession implements ByteSession {

  private static final byte[] OK = Resp.simple("OK");
  private static final byte[] PONG = Resp.simple("PONG");
  private static final byte[] EMPTY_ARRAY = Resp.arrayHeader(0);
  private static final int MAX_ARGS = 1024 * 1024;
  private static final int MAX_INLINE = 64 * 1024;
  private static final RateLimitedLog HTTP_LOG = new RateLimitedLog(LoggerFactory.getLogger(RespSession.class), 5);

  private final ServerContext context;
  private final Resp.Parser parser;
  /** The largest reply one command may build (MGET's); see {@link #mget}. */
  private final int maxReplyBytes;
  private boolean firstCommand = true;
  private int needed;

  RespSession(ServerContext context) {
    this.context = context;
    int maxBulk = Math.max(context.limits.maxKeyBytes(), context.limits.maxValueBytes());
    // One command, like one v2 frame, holds at most maxFrameBytes: its arguments stay in memory
    // until it is complete, and its reply is built whole.
    this.parser = new Resp.Parser(MAX_ARGS, maxBulk, MAX_INLINE, context.limits.maxFrameBytes());
    this.maxReplyBytes = context.limits.maxFrameBytes();
  }

  @Override
  public Next onRead(ByteBuffer in, OutputBuffer out) throws ProtocolException {
    while (true) {
      if (out.aboveHighWater()) {
        return Next.FLUSH_FIRST; // the rest waits in the input buffer until the replies drain
      }
      Resp.Parsed parsed;
      boolean inline = !parser.inArray() && in.hasRemaining() && in.get(in.position()) != '*';
      try {
        parsed = parser.next(in);
      } catch (ProtocolException e) {
        out.put(Resp.error("ERR " + e.getMessage()));
        throw e;
      }
      if (parsed instanceof Resp.Incomplete incomplete) {
        needed = incomplete.neededBytes();
        return Next.READ_MORE;
      }
      needed = 0;
      List<byte[]> args = ((Resp.Command) parsed).args();
      if (inline) {
        refuseHttp(args);
        if (!context.options.inlineCommands() && !args.isEmpty()) {
          out.put(Resp.error("ERR inline commands are off on this server (--no-inline): send RESP arrays, as redis-cli does"));
          throw new ProtocolException("inline command refused: inline commands are off (--no-inline)");
        }
      }
      if (args.isEmpty()) {
        continue; // a blank inline line: Redis ignores it too
      }
      firstCommand = false;
      context.commandsProcessed.increment();
      boolean quit;
      try {
        quit = execute(args, out);
      } catch (dbf0.kv.storage.StorageFailureException e) {
        // The write-ahead log could not keep a write: -ERR, as Redis answers when its AOF
        // cannot be written (MISCONF/-ERR); reads go on. An MSET may have kept some pairs.
        out.put(Resp.error("ERR not stored: " + e.getMessage().replaceAll("[\r\n]", " ")));
        quit = false;
      }
      if (quit) {
        return Next.CLOSE_AFTER_WRITE;
      }
    }
  }

  /**
   * A web page in a local browser can POST to a loopback port, and a capital letter starts an
   * inline command: the request line and headers would be read as commands, and a text/plain
   * body of "SET ..." or "FLUSHALL" lines executed. A line that looks like HTTP (a request
   * line ending in HTTP/x, a POST, or a header such as Host:) closes the connection before
   * anything from it runs, as Redis does.
   */
  private void refuseHttp(List<byte[]> args) throws ProtocolException {
    if (args.isEmpty()) {
      return;
    }
    String first = new String(args.get(0), StandardCharsets.ISO_8859_1);
    String last = new String(args.get(args.size() - 1), StandardCharsets.ISO_8859_1);
    boolean http = first.equalsIgnoreCase("POST") || first.endsWith(":")
        || (args.size() == 3 && last.startsWith("HTTP/")); // METHOD target HTTP/1.1
    if (http) {
      HTTP_LOG.warn("RESP: closed a connection whose {} looks like HTTP ({}): a browser or a cross-protocol "
          + "attack; nothing from it was run", firstCommand ? "first line" : "line", printable(first));
      throw new ProtocolException("an HTTP request is not a RESP command; closing");
    }
  }

  private static String printable(String s) {
    String cut = s.length() > 32 ? s.substring(0, 32) + "..." : s;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }

  /** Runs one command, appends its reply; returns true if the connection should close (QUIT). */
  private boolean execute(List<byte[]> args, OutputBuffer out) {
    String name = new String(args.get(0), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
    int n = args.size();
    switch (name) {
      case "PING" -> {
        if (n == 1) {
          out.put(PONG);
        } else if (n == 2) {
          bulk(out, args.get(1));
        } else {
          wrongArgs(out, "ping");
        }
      }
      case "ECHO" -> {
        if (n == 2) {
          bulk(out, args.get(1));
        } else {
          wrongArgs(out, "echo");
        }
      }
      case "GET" -> {
        if (n != 2) {
          wrongArgs(out, "get");
        } else {
          ByteArrayWrapper value = context.store.get(key(args.get(1)));
          bulk(out, value == null ? null : value.getArray());
        }
      }
      case "SET" -> set(args, out);
      case "DEL" -> countKeys(args, out, "del", context.store::delete);
      case "EXISTS" -> countKeys(args, out, "exists", context.store::contains);
      case "MGET" -> mget(args, out);
      case "MSET" -> {
        if (n < 3 || n % 2 == 0) {
          wrongArgs(out, "mset");
        } else if (tooLarge(args, 1, out)) {
          return false;
        } else {
          for (int i = 1; i < n; i += 2) {
            context.store.put(key(args.get(i)), new ByteArrayWrapper(args.get(i + 1)));
          }
          out.put(OK);
        }
      }
      case "DBSIZE" -> out.put(Resp.integer(context.store.size()));
      case "FLUSHALL", "FLUSHDB" -> {
        context.store.clear();
        out.put(OK);
      }
      case "BGREWRITEAOF" -> {
        if (context.durable == null) {
          out.put(Resp.error("ERR this server keeps no log to rewrite: start it with --data-dir"));
        } else {
          context.durable.rewriteAsync(); // the outcome shows in INFO persistence, as in Redis
          out.put(Resp.simple("Background append only file rewriting started"));
        }
      }
      case "INFO" -> bulk(out, RespInfo.render(context, n > 1 ? lower(args.get(1)) : "default")
          .getBytes(StandardCharsets.UTF_8));
      case "CONFIG" -> config(args, out);
      case "COMMAND" -> out.put(EMPTY_ARRAY); // COMMAND, COMMAND DOCS, COMMAND COUNT...: nothing to describe
      case "CLIENT" -> {
        String sub = n > 1 ? lower(args.get(1)) : "";
        if (sub.equals("setname") || sub.equals("setinfo")) {
          out.put(OK);
        } else {
          out.put(Resp.error("ERR unknown subcommand '" + sub + "' for 'client': dbf0 supports CLIENT SETNAME and SETINFO"));
        }
      }
      case "HELLO" -> out.put(Resp.error(
          "NOPROTO dbf0 speaks RESP2 only: RESP3 (HELLO) is not supported, use the default protocol"));
      case "SELECT" -> {
        if (n == 2 && new String(args.get(1), StandardCharsets.US_ASCII).equals("0")) {
          out.put(OK);
        } else {
          out.put(Resp.error("ERR DB index is out of range: dbf0 has only database 0"));
        }
      }
      case "QUIT" -> {
        out.put(OK);
        return true;
      }
      default -> out.put(Resp.error("ERR unknown command '" + new String(args.get(0), StandardCharsets.UTF_8)
          + "', with args beginning with: " + argsPreview(args)));
    }
    return false;
  }

  /**
   * MGET looks every value up first and answers an error instead when the reply would pass
   * {@code maxReplyBytes} (the v2 frame limit, 16 MiB by default): 400 copies of a 1 MiB value
   * asked for in 3.6 KB must not build 400 MiB of reply. The values looked up are the ones
   * sent, so no concurrent writer can make the reply larger than what was checked.
   */
  private void mget(List<byte[]> args, OutputBuffer out) {
    int n = args.size();
    if (n < 2) {
      wrongArgs(out, "mget");
      return;
    }
    byte[][] values = new byte[n - 1][];
    long size = Resp.arrayHeader(n - 1).length;
    for (int i = 1; i < n; i++) {
      ByteArrayWrapper value = context.store.get(key(args.get(i)));
      values[i - 1] = value == null ? null : value.getArray();
      size += Resp.bulkSize(values[i - 1]);
      if (size > maxReplyBytes) {
        out.put(Resp.error("ERR MGET reply would exceed " + maxReplyBytes + " bytes; ask for fewer keys at a time"));
        return;
      }
    }
    out.put(Resp.arrayHeader(n - 1));
    for (byte[] value : values) {
      bulk(out, value);
    }
  }

  /** DEL and EXISTS: apply {@code test} to every key argument and answer how many were true. */
  private static void countKeys(List<byte[]> args, OutputBuffer out, String command,
      java.util.function.Predicate<ByteArrayWrapper> test) {
    if (args.size() < 2) {
      wrongArgs(out, command);
      return;
    }
    long count = 0;
    for (int i = 1; i < args.size(); i++) {
      if (test.test(key(args.get(i)))) {
        count++;
      }
    }
    out.put(Resp.integer(count));
  }

  private void set(List<byte[]> args, OutputBuffer out) {
    if (args.size() < 3) {
      wrongArgs(out, "set");
    } else if (args.size() > 3) {
      out.put(Resp.error("ERR syntax error: dbf0 supports plain SET key value, without options such as "
          + lower(args.get(3)).toUpperCase(Locale.ROOT)));
    } else if (!tooLarge(args, 1, out)) {
      context.store.put(key(args.get(1)), new ByteArrayWrapper(args.get(2)));
      out.put(OK);
    }
  }

  /** Checks key/value pairs from {@code from} against the limits; replies with an error if over. */
  private boolean tooLarge(List<byte[]> args, int from, OutputBuffer out) {
    for (int i = from; i + 1 < args.size(); i += 2) {
      if (args.get(i).length > context.limits.maxKeyBytes()) {
        out.put(Resp.error("ERR key of " + args.get(i).length + " bytes exceeds the " + context.limits.maxKeyBytes()
            + "-byte limit"));
        return true;
      }
      if (args.get(i + 1).length > context.limits.maxValueBytes()) {
        out.put(Resp.error("ERR value of " + args.get(i + 1).length + " bytes exceeds the "
            + context.limits.maxValueBytes() + "-byte limit"));
        return true;
      }
    }
    return false;
  }

  /**
   * CONFIG GET answers an array of name/value pairs. redis-benchmark asks for "save" and
   * "appendonly" when it starts; dbf0 keeps nothing on disk, so both are off.
   */
  private void config(List<byte[]> args, OutputBuffer out) {
    if (args.size() < 3 || !lower(args.get(1)).equals("get")) {
      out.put(Resp.error("ERR dbf0 supports only CONFIG GET parameter"));
      return;
    }
    // Each parameter answers once however often it is asked for: a million "save"s must not
    // turn a 10 MB command into a 20 MB reply.
    java.util.Map<String, String> pairs = new java.util.LinkedHashMap<>();
    for (int i = 2; i < args.size(); i++) {
      String param = lower(args.get(i));
      switch (param) {
        case "save" -> pairs.put("save", "");
        case "appendonly" -> pairs.put("appendonly", "no");
        case "databases" -> pairs.put("databases", "1");
        case "maxclients" -> pairs.put("maxclients", Integer.toString(context.options.maxConnections()));
        default -> { } // unknown parameters match nothing, as in Redis
      }
    }
    out.put(Resp.arrayHeader(pairs.size() * 2));
    for (java.util.Map.Entry<String, String> pair : pairs.entrySet()) {
      bulk(out, pair.getKey().getBytes(StandardCharsets.UTF_8));
      bulk(out, pair.getValue().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static ByteArrayWrapper key(byte[] bytes) {
    return new ByteArrayWrapper(bytes);
  }

  private static void bulk(OutputBuffer out, byte[] bytes) {
    Resp.putBulk(out.reserve(Resp.bulkSize(bytes)), bytes);
  }

  private static void wrongArgs(OutputBuffer out, String command) {
    out.put(Resp.error("ERR wrong number of arguments for '" + command + "' command"));
  }

  private static String lower(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
  }

  private static String argsPreview(List<byte[]> args) {
    StringBuilder s = new StringBuilder();
    for (int i = 1; i < args.size() && s.length() < 128; i++) {
      s.append('\'').append(new String(args.get(i), StandardCharsets.UTF_8)).append("' ");
    }
    return s.toString();
  }

  /** Bytes the parser has examined over the connection's life, for tests of its linearity. */
  long parseWork() {
    return parser.examined();
  }

  @Override
  public int bytesNeeded() {
    return needed;
  }

  @Override
  public void onEndOfStream(int unconsumed) throws java.io.EOFException {
    if (unconsumed > 0) {
      throw new java.io.EOFException("stream ended inside a RESP command, " + unconsumed + " bytes into it");
    }
  }
}
