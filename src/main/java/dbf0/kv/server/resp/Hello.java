package dbf0.kv.server.resp;

import dbf0.base.server.OutputBuffer;
import dbf0.kv.protocol.Resp;
import java.util.List;

/**
 * HELLO [protover ...]: Redis switches the connection to RESP3 (and may authenticate it). dbf0
 * speaks RESP2 only, so it always answers {@code -NOPROTO}, the error Redis gives for a protocol
 * version it does not speak; a client library then stays on RESP2.
 */
final class Hello implements RespCommand {

  private static final byte[] NOPROTO = Resp.error(
      "NOPROTO dbf0 speaks RESP2 only: RESP3 (HELLO) is not supported, use the default protocol");

  @Override
  public List<String> names() {
    return List.of("HELLO");
  }

  @Override
  public int arity() {
    return -1;
  }

  @Override
  public boolean execute(List<byte[]> args, RespContext context, OutputBuffer out) {
    out.put(NOPROTO);
    return false;
  }
}
