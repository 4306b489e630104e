package dbf0.kv.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * Protocol v2, byte for byte: frames to and from {@link Request} and {@link Response} values. Pure:
 * no sockets, no threads, no state, so every method is safe to call from any thread.
 *
 * <p>v1 ({@link V1Codec}) serves one unacknowledged operation per connection, with 127-byte arrays
 * and no way to say "that was wrong". v2 keeps the connection open, answers every request (a SET is
 * acknowledged), adds DELETE, PING and batches, allows long keys and values, and replies ERROR with
 * a message instead of hanging up.
 *
 * <pre>
 *  connection  client to server:  0xDB 0x02  frame frame frame ...   preamble once, then requests
 *              server to client:  frame frame frame ...              one reply per request,
 *                                                                    in order
 *
 *  frame       +----------------------+---------------------------------+
 *              | body length: u32 BE  | body                            |
 *              +----------------------+------+--------------------------+
 *                                     | type | fields                   |
 *                                     +------+--------------------------+
 *  field       +----------------------+------------------+
 *  ("bytes")   | n: u32 BE            | n bytes          |
 *              +----------------------+------------------+
 *
 *  requests    GET       'G' 0x47 | key
 *              SET       'S' 0x53 | key | value
 *              DELETE    'D' 0x44 | key
 *              PING      'P' 0x50
 *              BATCH     'B' 0x42 | u32 count | count x (type | fields), each a GET, SET or DELETE
 *              RANGE     'R' 0x52 | u8 flags | u32 limit | start | end    (empty end: no end)
 *  responses   VALUE     'V' 0x56 | value            GET found
 *              NOT_FOUND 'N' 0x4E                    GET missed, DELETE found nothing
 *              OK        'K' 0x4B                    SET applied, DELETE removed, PING
 *              ERROR     'E' 0x45 | UTF-8 message
 *              BATCH     'B' 0x42 | u32 count | count x (type | fields), each a VALUE,
 *                                   NOT_FOUND, OK or ERROR
 *              RANGE     'R' 0x52 | u8 more | u32 count | count x (key | value)
 * </pre>
 *
 * <p><b>Why a length in front of every frame.</b> A reader learns where a frame ends before it
 * looks inside. So when the inside is wrong (an unknown type, a key over the limit, a field that
 * runs past the end), it can skip exactly that frame, answer ERROR, and read the next one: the
 * stream is still in step. That is the <em>recoverable</em> case, {@link DecodeResult.Invalid}.
 * Only the length header itself has to be taken on trust. When it is above {@link
 * ProtocolLimits#maxFrameBytes()} the peer is broken, hostile or out of step (those four bytes may
 * be the middle of something else), and skipping gigabytes on its word is no safer than reading
 * them. That is the <em>fatal</em> case: the decoder throws {@link ProtocolException}, and a server
 * answers ERROR and closes.
 *
 * <p><b>Never an allocation from an unchecked number.</b> Every length is checked against the
 * limits and against the bytes that are actually there before an array is made for it, so four
 * hostile bytes ({@code 7f ff ff ff}) cost an exception, not two gigabytes. A batch's count is
 * checked too: a list is never sized beyond what the body can hold (each operation takes at least
 * five bytes).
 *
 * <p><b>Batches are all or nothing at the protocol level.</b> One malformed operation makes the
 * whole batch invalid: one ERROR for the batch and no operation applied, which keeps "one reply per
 * request" simple and never leaves a client guessing which half of a batch happened.
 *
 * <p><b>Pipelining.</b> Replies carry no request id: the server answers in request order, so a
 * client may send many frames before reading any reply and match them up by position.
 *
 * <p>Writers check the same limits before writing anything: a request the other side would refuse
 * fails with {@link IllegalArgumentException} on the sender. Test vectors: {@code
 * src/test/resources/vectors/protocol-v2.json}; the prose version is {@code docs/protocol.md}.
 *
 * <p>The work is split by concept: {@link V2Frames} (the length header), {@link V2Requests} and
 * {@link V2Responses} (the bodies), {@link V2Batches} and {@link V2Fields} (the pieces).
 */
public final class V2Codec {

    /**
     * First preamble byte. Not ASCII, so a v2 connection never looks like v1 ('s', 'g') or RESP.
     */
    public static final byte MAGIC = (byte) 0xDB;

    /** Second preamble byte: the protocol version this codec speaks. */
    public static final byte VERSION = 2;

    /** The preamble's size: {@link #MAGIC} then {@link #VERSION}, sent once by the client. */
    public static final int PREAMBLE_BYTES = 2;

    /** The frame header's size: the body length as a big-endian u32. */
    public static final int HEADER_BYTES = 4;

    public static final byte GET = 'G';
    public static final byte SET = 'S';
    public static final byte DELETE = 'D';
    public static final byte PING = 'P';

    /** A batch, in both directions. */
    public static final byte BATCH = 'B';

    /** A range read, in both directions: the request and its reply of pairs. */
    public static final byte RANGE = 'R';

    /** A cluster's slot map, in both directions: the request, and its reply of slot ranges. */
    public static final byte TOPOLOGY = 'T';

    /** A cluster node's answer for a key another node owns: the slot and the owner's address. */
    public static final byte MOVED = 'M';

    public static final byte VALUE = 'V';
    public static final byte NOT_FOUND = 'N';
    public static final byte OK = 'K';
    public static final byte ERROR = 'E';

    private V2Codec() {}

    // ---------------------------------------------------------------------------------------------
    // Preamble

    /** The two preamble bytes, {@code db 02} (a fresh array each time). */
    public static byte[] preamble() {
        return new byte[] {MAGIC, VERSION};
    }

    /** Writes the preamble; a client does this once, before its first frame. */
    public static void writePreamble(OutputStream out) throws IOException {
        out.write(preamble());
    }

    /**
     * Consumes the preamble from a buffer.
     *
     * @return true once it was there and consumed; false if fewer than {@link #PREAMBLE_BYTES}
     *     bytes are available (nothing consumed)
     * @throws ProtocolException for a wrong magic byte or version (fatal: a server answers ERROR
     *     with the message and closes); nothing consumed
     */
    public static boolean decodePreamble(ByteBuffer in) throws ProtocolException {
        if (in.remaining() < PREAMBLE_BYTES) {
            return false;
        }
        int at = in.position();
        checkPreamble(in.get(at), in.get(at + 1));
        in.position(at + PREAMBLE_BYTES);
        return true;
    }

    /**
     * Reads and checks the preamble from a blocking stream.
     *
     * @throws CleanEofException if the stream ended before its first byte
     * @throws EOFException if it ended after the first byte
     * @throws ProtocolException for a wrong magic byte or version (fatal)
     */
    public static void readPreamble(InputStream in) throws IOException {
        byte[] preamble = new byte[PREAMBLE_BYTES];
        int got = in.readNBytes(preamble, 0, PREAMBLE_BYTES);
        if (got == 0) {
            throw new CleanEofException("stream ended before the preamble");
        }
        if (got < PREAMBLE_BYTES) {
            throw new EOFException(
                    "stream ended inside the preamble, after "
                            + got
                            + " of "
                            + PREAMBLE_BYTES
                            + " bytes");
        }
        checkPreamble(preamble[0], preamble[1]);
    }

    private static void checkPreamble(byte magic, byte version) throws ProtocolException {
        if (magic != MAGIC) {
            throw new ProtocolException(
                    String.format(
                            "not a v2 connection: it starts with 0x%02x, not the magic byte 0xdb",
                            magic & 0xff));
        }
        if (version != VERSION) {
            throw new ProtocolException(
                    "unsupported protocol version "
                            + (version & 0xff)
                            + ": this peer speaks version "
                            + VERSION);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Encoding

    /** The size of the request's whole frame, header included. Checks no limits. */
    public static int encodedSize(Request request) {
        return V2Frames.size(V2Requests.bodySize(request, null));
    }

    /** The size of the response's whole frame, header included. Checks no limits. */
    public static int encodedSize(Response response) {
        return V2Frames.size(V2Responses.bodySize(response, null));
    }

    /**
     * Writes the request's frame at the buffer's position (in big-endian, whatever the buffer's own
     * byte order) and advances the position past it.
     *
     * @throws IllegalArgumentException if the request breaks a limit; nothing is written then
     * @throws BufferOverflowException if fewer than {@link #encodedSize(Request)} bytes remain;
     *     nothing is written then
     */
    public static void encode(Request request, ByteBuffer out, ProtocolLimits limits) {
        V2Requests.put(V2Frames.start(out, V2Requests.bodySize(request, limits), limits), request);
    }

    /**
     * The request's frame as a new array.
     *
     * @throws IllegalArgumentException if the request breaks a limit
     */
    public static byte[] encode(Request request, ProtocolLimits limits) {
        ByteBuffer out = V2Frames.allocate(V2Requests.bodySize(request, limits), limits);
        V2Requests.put(out, request);
        return out.array();
    }

    /**
     * Writes the response's frame; see {@link #encode(Request, ByteBuffer, ProtocolLimits)}.
     *
     * @throws IllegalArgumentException if the response breaks a limit; nothing is written then
     * @throws BufferOverflowException if the buffer has too little room; nothing is written then
     */
    public static void encode(Response response, ByteBuffer out, ProtocolLimits limits) {
        V2Responses.put(
                V2Frames.start(out, V2Responses.bodySize(response, limits), limits), response);
    }

    /**
     * The response's frame as a new array.
     *
     * @throws IllegalArgumentException if the response breaks a limit
     */
    public static byte[] encode(Response response, ProtocolLimits limits) {
        ByteBuffer out = V2Frames.allocate(V2Responses.bodySize(response, limits), limits);
        V2Responses.put(out, response);
        return out.array();
    }

    /**
     * Writes the request's frame in one {@code write} call. To pipeline, write several requests
     * into a {@link java.io.BufferedOutputStream} and flush once.
     *
     * @throws IllegalArgumentException if the request breaks a limit; nothing is written then
     */
    public static void writeRequest(OutputStream out, Request request, ProtocolLimits limits)
            throws IOException {
        out.write(encode(request, limits));
    }

    /**
     * Writes the response's frame in one {@code write} call.
     *
     * @throws IllegalArgumentException if the response breaks a limit; nothing is written then
     */
    public static void writeResponse(OutputStream out, Response response, ProtocolLimits limits)
            throws IOException {
        out.write(encode(response, limits));
    }

    // ---------------------------------------------------------------------------------------------
    // Decoding

    /**
     * Decodes the next request frame from the buffer's position, for event loops that read into a
     * buffer as bytes arrive. The buffer's own byte order does not matter.
     *
     * @return {@link DecodeResult.Incomplete} (nothing consumed), {@link DecodeResult.Frame} or
     *     {@link DecodeResult.Invalid} (the whole frame consumed either way)
     * @throws ProtocolException if the length header is above {@link
     *     ProtocolLimits#maxFrameBytes()} (a negative int counts as above): fatal, nothing consumed
     */
    public static DecodeResult<Request> decodeRequest(ByteBuffer in, ProtocolLimits limits)
            throws ProtocolException {
        return V2Frames.decode(in, limits, V2Requests::parse);
    }

    /** Decodes the next response frame; see {@link #decodeRequest(ByteBuffer, ProtocolLimits)}. */
    public static DecodeResult<Response> decodeResponse(ByteBuffer in, ProtocolLimits limits)
            throws ProtocolException {
        return V2Frames.decode(in, limits, V2Responses::parse);
    }

    /**
     * Reads the next request frame from a blocking stream. Allocates only after the length header
     * has passed the limit, and grows the body as its bytes actually arrive, so a peer that
     * announces a large frame and then stalls holds little memory.
     *
     * @return {@link DecodeResult.Frame} or {@link DecodeResult.Invalid}; the whole frame is read
     *     either way, so the next call starts on the next frame
     * @throws CleanEofException if the stream ended between frames (the peer is done)
     * @throws EOFException if it ended inside a frame (the message says where)
     * @throws ProtocolException if the length header is above the frame limit (fatal)
     */
    public static DecodeResult.Complete<Request> readRequest(InputStream in, ProtocolLimits limits)
            throws IOException {
        return V2Frames.parse(V2Frames.readBody(in, limits), limits, V2Requests::parse);
    }

    /** Reads the next response frame; see {@link #readRequest(InputStream, ProtocolLimits)}. */
    public static DecodeResult.Complete<Response> readResponse(
            InputStream in, ProtocolLimits limits) throws IOException {
        return V2Frames.parse(V2Frames.readBody(in, limits), limits, V2Responses::parse);
    }
}
