package dbf0.kv.server;

import dbf0.base.ByteSession;
import dbf0.base.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Protocol v2 on the server: a persistent connection of length-prefixed frames, every request
 * answered in order. All the complete frames in one read are answered together, so a pipelining
 * client's requests cost one read and one write system call for many operations.
 *
 * <p>Errors: a malformed frame whose length was sane gets an ERROR reply and the connection goes
 * on (the next frame starts right after it); a frame longer than the limit or a bad preamble gets
 * an ERROR reply and the connection is closed, because its framing can no longer be trusted.
 */
final class V2Session implements ByteSession {

  private static final Response OK = new Response.Ok();
  private static final Response NOT_FOUND = new Response.NotFound();

  private final Map<ByteArrayWrapper, ByteArrayWrapper> map;
  private final ProtocolLimits limits;
  private boolean preambleSeen;
  private int needed;

  V2Session(Map<ByteArrayWrapper, ByteArrayWrapper> map, ProtocolLimits limits) {
    this.map = map;
    this.limits = limits;
  }

  @Override
  public Next onRead(ByteBuffer in, OutputBuffer out) throws ProtocolException {
    try {
      if (!preambleSeen) {
        if (!V2Codec.decodePreamble(in)) {
          return Next.READ_MORE;
        }
        preambleSeen = true;
      }
      while (true) {
        DecodeResult<Request> result = V2Codec.decodeRequest(in, limits);
        switch (result) {
          case DecodeResult.Incomplete<Request> incomplete -> {
            needed = incomplete.neededBytes();
            return Next.READ_MORE;
          }
          case DecodeResult.Frame<Request> frame -> reply(out, apply(frame.value()));
          case DecodeResult.Invalid<Request> invalid -> reply(out, new Response.Error(invalid.message()));
        }
      }
    } catch (ProtocolException fatal) {
      reply(out, new Response.Error(fatal.getMessage()));
      throw fatal;
    }
  }

  private Response apply(Request request) {
    return switch (request) {
      case Request.Get get -> {
        ByteArrayWrapper value = map.get(get.key());
        yield value == null ? NOT_FOUND : new Response.Value(value);
      }
      case Request.Set set -> {
        map.put(set.key(), set.value());
        yield OK;
      }
      case Request.Delete delete -> map.remove(delete.key()) != null ? OK : NOT_FOUND;
      case Request.Ping ping -> OK;
      case Request.Batch batch -> {
        List<Response> replies = new ArrayList<>(batch.ops().size());
        for (Request op : batch.ops()) {
          replies.add(apply(op));
        }
        yield new Response.Batch(replies);
      }
    };
  }

  private void reply(OutputBuffer out, Response response) {
    V2Codec.encode(response, out.reserve(V2Codec.encodedSize(response)), limits);
  }

  @Override
  public int bytesNeeded() {
    return needed;
  }

  @Override
  public void onEndOfStream(int unconsumed) throws EOFException {
    if (unconsumed > 0) {
      throw new EOFException("stream ended inside a v2 frame, " + unconsumed + " bytes into it");
    }
  }
}
