package dbf0.kv.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * One direction of {@link V2Codec}: requests or responses. The tests run the same checks over
 * both through this, instead of writing each check twice.
 */
interface Wire<T> {

  int encodedSize(T value);

  byte[] encode(T value, ProtocolLimits limits);

  void encode(T value, ByteBuffer out, ProtocolLimits limits);

  void write(OutputStream out, T value, ProtocolLimits limits) throws IOException;

  DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException;

  DecodeResult.Complete<T> read(InputStream in, ProtocolLimits limits) throws IOException;

  Wire<Request> REQUESTS = new Wire<>() {
    @Override
    public int encodedSize(Request value) {
      return V2Codec.encodedSize(value);
    }

    @Override
    public byte[] encode(Request value, ProtocolLimits limits) {
      return V2Codec.encode(value, limits);
    }

    @Override
    public void encode(Request value, ByteBuffer out, ProtocolLimits limits) {
      V2Codec.encode(value, out, limits);
    }

    @Override
    public void write(OutputStream out, Request value, ProtocolLimits limits) throws IOException {
      V2Codec.writeRequest(out, value, limits);
    }

    @Override
    public DecodeResult<Request> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException {
      return V2Codec.decodeRequest(in, limits);
    }

    @Override
    public DecodeResult.Complete<Request> read(InputStream in, ProtocolLimits limits) throws IOException {
      return V2Codec.readRequest(in, limits);
    }

    @Override
    public String toString() {
      return "requests";
    }
  };

  Wire<Response> RESPONSES = new Wire<>() {
    @Override
    public int encodedSize(Response value) {
      return V2Codec.encodedSize(value);
    }

    @Override
    public byte[] encode(Response value, ProtocolLimits limits) {
      return V2Codec.encode(value, limits);
    }

    @Override
    public void encode(Response value, ByteBuffer out, ProtocolLimits limits) {
      V2Codec.encode(value, out, limits);
    }

    @Override
    public void write(OutputStream out, Response value, ProtocolLimits limits) throws IOException {
      V2Codec.writeResponse(out, value, limits);
    }

    @Override
    public DecodeResult<Response> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException {
      return V2Codec.decodeResponse(in, limits);
    }

    @Override
    public DecodeResult.Complete<Response> read(InputStream in, ProtocolLimits limits) throws IOException {
      return V2Codec.readResponse(in, limits);
    }

    @Override
    public String toString() {
      return "responses";
    }
  };
}
