package dbf0.kv.server.resp;

import dbf0.base.server.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import java.util.List;

/**
 * MSET key value [key value ...]: stores every pair, answers {@code +OK}. Redis sets them all
 * atomically; dbf0's store has no multi-key transaction, so another connection may see some
 * pairs before the rest. Every pair is checked against the limits before any is stored, so an
 * oversized pair stores nothing.
 */
final class MSet implements RespCommand {

  @Override
  public List<String> names() {
    return List.of("MSET");
  }

  @Override
  public int arity() {
    return -3;
  }

  @Override
  public boolean execute(List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
    int n = args.size();
    if (n % 2 == 0) {
      Reply.wrongArgs(out, "mset"); // a key without its value
    } else if (!Reply.tooLarge(args, 1, context, out)) {
      for (int i = 1; i < n; i += 2) {
        context.store().put(Reply.key(args.get(i)), new ByteArrayWrapper(args.get(i + 1)));
      }
      out.put(Reply.OK);
    }
    return false;
  }
}
