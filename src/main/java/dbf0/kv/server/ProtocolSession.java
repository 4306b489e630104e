package dbf0.kv.server;

import dbf0.base.ByteSession;
import dbf0.base.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.PrefixIo;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.V2Codec;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Every connection starts here: its first byte says which protocol it speaks, and the rest of
 * the connection is handed to that protocol's session.
 *
 * <pre>
 *   first byte             protocol
 *   's' 0x73, 'g' 0x67     v1, the seed protocol ({@link SeedSession})
 *   0xDB                   v2, persistent and pipelined ({@link V2Session}); 0xDB is not ASCII
 * </pre>
 *
 * Recognising the protocol from bytes the client sends anyway costs no round trip, and v1 stays
 * byte for byte what it was.
 */
final class ProtocolSession implements ByteSession {

  private final Map<ByteArrayWrapper, ByteArrayWrapper> map;
  private final ProtocolLimits limits;
  private ByteSession protocol;

  ProtocolSession(Map<ByteArrayWrapper, ByteArrayWrapper> map) {
    this(map, ProtocolLimits.DEFAULTS);
  }

  ProtocolSession(Map<ByteArrayWrapper, ByteArrayWrapper> map, ProtocolLimits limits) {
    this.map = map;
    this.limits = limits;
  }

  @Override
  public Next onRead(ByteBuffer in, OutputBuffer out) throws IOException {
    if (protocol == null) {
      if (!in.hasRemaining()) {
        return Next.READ_MORE;
      }
      protocol = choose(in.get(in.position()));
    }
    return protocol.onRead(in, out);
  }

  private ByteSession choose(byte first) throws ProtocolException {
    return switch (first) {
      case PrefixIo.SET, PrefixIo.GET -> new SeedSession(map);
      case V2Codec.MAGIC -> new V2Session(map, limits);
      default -> throw new ProtocolException(String.format(
          "first byte 0x%02x is no known protocol (v1 starts with 's' or 'g', v2 with 0xdb)", first & 0xff));
    };
  }

  @Override
  public int bytesNeeded() {
    return protocol == null ? 0 : protocol.bytesNeeded();
  }

  @Override
  public void onEndOfStream(int unconsumed) throws IOException {
    if (protocol == null) {
      throw new EOFException("connected but sent no request");
    }
    protocol.onEndOfStream(unconsumed);
  }
}
