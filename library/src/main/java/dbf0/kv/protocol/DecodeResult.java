package dbf0.kv.protocol;

import java.util.Objects;

/**
 * What one attempt to decode a frame gave: not enough bytes yet, a value, or a frame that was
 * complete but malformed. All three decoders answer in it: {@link V1Codec#decodeRequest}, {@link
 * V2Codec#decodeRequest}/{@link V2Codec#decodeResponse} and RESP's {@link RespCodec#parse} and
 * {@link RespCodec.Parser#next}. (A frame that cannot even be delimited is not a result: the
 * decoder throws {@link ProtocolException}. v1 and RESP have no other kind of error, so only v2
 * ever answers {@link Invalid}.)
 *
 * <p>An event loop keeps decoding from its buffer while the result is {@link Complete}, and goes
 * back to reading from the socket on {@link Incomplete}:
 *
 * <pre>{@code
 * while (true) {
 *   switch (V2Codec.decodeRequest(buffer, limits)) {
 *     case DecodeResult.Frame<Request>(Request request) -> reply(execute(request));
 *     case DecodeResult.Invalid<Request>(String message) -> reply(new Response.Error(message));
 *     case DecodeResult.Incomplete<Request>(int neededBytes) -> { growTo(neededBytes); return; }
 *   }
 * }
 * }</pre>
 *
 * @param <T> what a frame holds: v2's {@link Request} or {@link Response}, a {@link
 *     V1Codec.V1Request}, or a RESP command's arguments
 */
public sealed interface DecodeResult<T> {

    /**
     * The buffer does not hold a whole frame yet. Nothing was consumed: the buffer's position is
     * unchanged, and the same call succeeds once more bytes have been appended. (The one exception
     * is RESP's resumable {@link RespCodec.Parser}, which consumes the arguments it has finished
     * and says so.)
     *
     * @param neededBytes how many bytes, counted from the buffer's position, the next frame takes
     *     as far as is known; a caller sizes its buffer by it. For v2, {@link V2Codec#HEADER_BYTES}
     *     while the length header itself is incomplete, then the header plus the announced body,
     *     which is at most {@link ProtocolLimits#maxFrameBytes()} plus the header. For v1 at most
     *     257 (a SET of two 127-byte arrays); for RESP at most one bulk string and its header line
     *     beyond what is there.
     */
    record Incomplete<T>(int neededBytes) implements DecodeResult<T> {}

    /** A whole frame was there and was consumed: a value or an {@link Invalid} frame. */
    sealed interface Complete<T> extends DecodeResult<T> {}

    /** A well-formed frame, consumed. */
    record Frame<T>(T value) implements Complete<T> {
        public Frame {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * A complete frame whose body is malformed, consumed as a whole. The stream is still in step
     * (the next frame starts right after it), so this is recoverable: a server answers {@code
     * Response.Error(message)} and goes on with the next frame.
     *
     * @param message what is wrong, for a person (e.g. "key of 70000 bytes exceeds the 65536-byte
     *     limit")
     */
    record Invalid<T>(String message) implements Complete<T> {
        public Invalid {
            Objects.requireNonNull(message, "message");
        }
    }
}
