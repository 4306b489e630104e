package dbf0.kv.server.resp;

import dbf0.base.server.OutputBuffer;
import dbf0.kv.protocol.Resp;
import java.util.List;

/**
 * CLIENT subcommand: Redis has many (LIST, KILL, ID, ...). dbf0 answers {@code +OK} to
 * SETNAME and SETINFO, which client libraries send on connecting, without keeping the name;
 * any other subcommand is an error.
 */
final class Client implements RespCommand {

  @Override
  public List<String> names() {
    return List.of("CLIENT");
  }

  @Override
  public int arity() {
    return -1; // a missing subcommand gets the unknown-subcommand error below
  }

  @Override
  public boolean execute(List<byte[]> args, RespContext context, OutputBuffer out) {
    String sub = args.size() > 1 ? Reply.lower(args.get(1)) : "";
    if (sub.equals("setname") || sub.equals("setinfo")) {
      out.put(Reply.OK);
    } else {
      out.put(Resp.error("ERR unknown subcommand '" + sub + "' for 'client': dbf0 supports CLIENT SETNAME and SETINFO"));
    }
    return false;
  }
}
