package dbf0.kv.server.resp;

import dbf0.base.server.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.Resp;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/** Replies and argument conversions the commands share, so each writes them the same way. */
final class Reply {

  static final byte[] OK = Resp.simple("OK");

  private Reply() {}

  /** A bulk string, or the null bulk string for null, written straight into {@code out}. */
  static void bulk(OutputBuffer out, byte[] bytes) {
    Resp.putBulk(out.reserve(Resp.bulkSize(bytes)), bytes);
  }

  static void wrongArgs(OutputBuffer out, String command) {
    out.put(Resp.error("ERR wrong number of arguments for '" + command + "' command"));
  }

  static ByteArrayWrapper key(byte[] bytes) {
    return new ByteArrayWrapper(bytes);
  }

  /** A subcommand or parameter name, for case-insensitive comparison. */
  static String lower(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
  }

  /**
   * Checks the key/value pairs of {@code args} from index {@code from} against the limits, and
   * answers the first that is over with an error.
   *
   * @return true if one was over (the error is written; the command must not go on)
   */
  static boolean tooLarge(List<byte[]> args, int from, RespContext context, OutputBuffer out) {
    int maxKey = context.limits().maxKeyBytes();
    int maxValue = context.limits().maxValueBytes();
    for (int i = from; i + 1 < args.size(); i += 2) {
      if (args.get(i).length > maxKey) {
        out.put(Resp.error("ERR key of " + args.get(i).length + " bytes exceeds the " + maxKey + "-byte limit"));
        return true;
      }
      if (args.get(i + 1).length > maxValue) {
        out.put(Resp.error("ERR value of " + args.get(i + 1).length + " bytes exceeds the " + maxValue
            + "-byte limit"));
        return true;
      }
    }
    return false;
  }
}
