package dbf0.kv.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;

/**
 * One direction of {@link V2Codec}, requests or responses, as its six entry points. The tests run
 * the same checks over both directions through this instead of writing each check twice.
 */
record Wire<T>(
        String name,
        ToIntFunction<T> sizer,
        BiFunction<T, ProtocolLimits, byte[]> encoder,
        IntoBuffer<T> bufferEncoder,
        IntoStream<T> writer,
        FromBuffer<T> decoder,
        FromStream<T> reader) {

    static final Wire<Request> REQUESTS =
            new Wire<>(
                    "requests",
                    V2Codec::encodedSize,
                    V2Codec::encode,
                    V2Codec::encode,
                    V2Codec::writeRequest,
                    V2Codec::decodeRequest,
                    V2Codec::readRequest);

    static final Wire<Response> RESPONSES =
            new Wire<>(
                    "responses",
                    V2Codec::encodedSize,
                    V2Codec::encode,
                    V2Codec::encode,
                    V2Codec::writeResponse,
                    V2Codec::decodeResponse,
                    V2Codec::readResponse);

    interface IntoBuffer<T> {
        void encode(T value, ByteBuffer out, ProtocolLimits limits);
    }

    interface IntoStream<T> {
        void write(OutputStream out, T value, ProtocolLimits limits) throws IOException;
    }

    interface FromBuffer<T> {
        DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException;
    }

    interface FromStream<T> {
        DecodeResult.Complete<T> read(InputStream in, ProtocolLimits limits) throws IOException;
    }

    int encodedSize(T value) {
        return sizer.applyAsInt(value);
    }

    byte[] encode(T value, ProtocolLimits limits) {
        return encoder.apply(value, limits);
    }

    void encode(T value, ByteBuffer out, ProtocolLimits limits) {
        bufferEncoder.encode(value, out, limits);
    }

    void write(OutputStream out, T value, ProtocolLimits limits) throws IOException {
        writer.write(out, value, limits);
    }

    DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException {
        return decoder.decode(in, limits);
    }

    DecodeResult.Complete<T> read(InputStream in, ProtocolLimits limits) throws IOException {
        return reader.read(in, limits);
    }

    @Override
    public String toString() {
        return name;
    }
}
