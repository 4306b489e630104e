package dbf0.kv.server.resp;

import dbf0.base.server.OutputBuffer;
import dbf0.kv.protocol.Resp;
import java.util.List;

/**
 * DEL key [key ...]: removes the keys and answers how many existed, as Redis does. A key named
 * twice counts once, since the second removal finds nothing.
 */
final class Del implements RespCommand {

  @Override
  public List<String> names() {
    return List.of("DEL");
  }

  @Override
  public int arity() {
    return -2;
  }

  @Override
  public boolean execute(List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
    long deleted = 0;
    for (int i = 1; i < args.size(); i++) {
      if (context.store().delete(Reply.key(args.get(i)))) {
        deleted++;
      }
    }
    out.put(Resp.integer(deleted));
    return false;
  }
}
