package dbf0.kv.server;

import dbf0.base.ByteSession;
import dbf0.base.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.PrefixIo;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Protocol v1 on the server: exactly one request per connection, then close. A SET gets no
 * reply; a GET gets FOUND or NOT_FOUND. The map does all the work and all the locking (or none,
 * for a HashMap: that is the seed's lesson).
 */
final class SeedSession implements ByteSession {

  private final Map<ByteArrayWrapper, ByteArrayWrapper> map;
  private boolean done;

  SeedSession(Map<ByteArrayWrapper, ByteArrayWrapper> map) {
    this.map = map;
  }

  @Override
  public Next onRead(ByteBuffer in, OutputBuffer out) throws java.io.IOException {
    PrefixIo.Request request = PrefixIo.decodeRequest(in);
    if (request == null) {
      return Next.READ_MORE;
    }
    done = true;
    if (request.op() == PrefixIo.SET) {
      map.put(request.key(), request.value());
    } else {
      out.put(PrefixIo.encodeGetResponse(map.get(request.key())));
    }
    return Next.CLOSE_AFTER_WRITE;
  }

  @Override
  public void onEndOfStream(int unconsumed) throws EOFException {
    if (!done) {
      throw new EOFException("stream ended after " + unconsumed + " bytes of a v1 request");
    }
  }
}
