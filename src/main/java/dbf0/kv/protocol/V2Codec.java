package dbf0.kv.protocol;

import static java.nio.charset.StandardCharsets.UTF_8;

import dbf0.common.ByteArrayWrapper;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Protocol v2, byte for byte: frames to and from {@link Request} and {@link Response} values. Pure:
 * no sockets, no threads, no state, so every method is safe to call from any thread.
 *
 * <p>v1 ({@link V1Codec}) serves one unacknowledged operation per connection, with 127-byte
 * arrays and no way to say "that was wrong". v2 keeps the connection open, answers every request
 * (a SET is acknowledged), adds DELETE, PING and batches, allows long keys and values, and replies
 * ERROR with a message instead of hanging up.
 *
 * <pre>
 *  connection  client to server:  0xDB 0x02  frame frame frame ...   preamble once, then requests
 *              server to client:  frame frame frame ...              one reply per request, in order
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
 *  responses   VALUE     'V' 0x56 | value            GET found
 *              NOT_FOUND 'N' 0x4E                    GET missed, DELETE found nothing
 *              OK        'K' 0x4B                    SET applied, DELETE removed, PING
 *              ERROR     'E' 0x45 | UTF-8 message
 *              BATCH     'B' 0x42 | u32 count | count x (type | fields), each a VALUE, NOT_FOUND, OK or ERROR
 * </pre>
 *
 * <p><b>Why a length in front of every frame.</b> A reader learns where a frame ends before it
 * looks inside. So when the inside is wrong (an unknown type, a key over the limit, a field that
 * runs past the end), it can skip exactly that frame, answer ERROR, and read the next one: the
 * stream is still in step. That is the <em>recoverable</em> case, {@link DecodeResult.Invalid}.
 * Only the length header itself has to be taken on trust. When it is above
 * {@link ProtocolLimits#maxFrameBytes()} the peer is broken, hostile or out of step (those four
 * bytes may be the middle of something else), and skipping gigabytes on its word is no safer than
 * reading them. That is the <em>fatal</em> case: the decoder throws {@link ProtocolException}, and
 * a server answers ERROR and closes.
 *
 * <p><b>Never an allocation from an unchecked number.</b> Every length is checked against the
 * limits and against the bytes that are actually there before an array is made for it, so four
 * hostile bytes ({@code 7f ff ff ff}) cost an exception, not two gigabytes. A batch's count is
 * checked too: a list is never sized beyond what the body can hold (each operation takes at least
 * five bytes).
 *
 * <p><b>Batches are all or nothing at the protocol level.</b> One malformed operation makes the
 * whole batch invalid: one ERROR for the batch and no operation applied, which keeps "one reply
 * per request" simple and never leaves a client guessing which half of a batch happened.
 *
 * <p><b>Pipelining.</b> Replies carry no request id: the server answers in request order, so a
 * client may send many frames before reading any reply and match them up by position.
 *
 * <p>Writers check the same limits before writing anything: a request the other side would
 * refuse fails with {@link IllegalArgumentException} on the sender. Test vectors:
 * {@code src/test/resources/vectors/protocol-v2.json}; the prose version is {@code docs/protocol.md}.
 */
public final class V2Codec {

  /** First preamble byte. Not ASCII, so a v2 connection never looks like v1 ('s', 'g') or RESP. */
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
  public static final byte VALUE = 'V';
  public static final byte NOT_FOUND = 'N';
  public static final byte OK = 'K';
  public static final byte ERROR = 'E';

  /** A field's length, and a batch's count: a big-endian u32. */
  private static final int LENGTH_BYTES = 4;
  /** The smallest operation in a batch: a GET or DELETE of the empty key. */
  private static final int MIN_BATCH_OP_BYTES = 1 + LENGTH_BYTES;
  /** The smallest reply in a batch: NOT_FOUND or OK. */
  private static final int MIN_BATCH_REPLY_BYTES = 1;
  /** A blocking read grows its body array in steps of at least this, as the bytes arrive. */
  private static final int READ_CHUNK_BYTES = 64 * 1024;

  private static final Request.Ping PING_REQUEST = new Request.Ping();
  private static final Response.NotFound NOT_FOUND_RESPONSE = new Response.NotFound();
  private static final Response.Ok OK_RESPONSE = new Response.Ok();

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
      throw new EOFException("stream ended inside the preamble, after " + got + " of " + PREAMBLE_BYTES + " bytes");
    }
    checkPreamble(preamble[0], preamble[1]);
  }

  private static void checkPreamble(byte magic, byte version) throws ProtocolException {
    if (magic != MAGIC) {
      throw new ProtocolException(
          String.format("not a v2 connection: it starts with 0x%02x, not the magic byte 0xdb", magic & 0xff));
    }
    if (version != VERSION) {
      throw new ProtocolException(
          "unsupported protocol version " + (version & 0xff) + ": this peer speaks version " + VERSION);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Encoding

  /** The size of the request's whole frame, header included. Checks no limits. */
  public static int encodedSize(Request request) {
    return frameSize(requestBodySize(request, null));
  }

  /** The size of the response's whole frame, header included. Checks no limits. */
  public static int encodedSize(Response response) {
    return frameSize(responseBodySize(response, null));
  }

  /**
   * Writes the request's frame at the buffer's position (in big-endian, whatever the buffer's
   * own byte order) and advances the position past it.
   *
   * @throws IllegalArgumentException if the request breaks a limit; nothing is written then
   * @throws BufferOverflowException if fewer than {@link #encodedSize(Request)} bytes remain;
   *     nothing is written then
   */
  public static void encode(Request request, ByteBuffer out, ProtocolLimits limits) {
    putRequest(startFrame(out, requestBodySize(request, limits), limits), request);
  }

  /**
   * The request's frame as a new array.
   *
   * @throws IllegalArgumentException if the request breaks a limit
   */
  public static byte[] encode(Request request, ProtocolLimits limits) {
    ByteBuffer out = newFrame(requestBodySize(request, limits), limits);
    putRequest(out, request);
    return out.array();
  }

  /**
   * Writes the response's frame; see {@link #encode(Request, ByteBuffer, ProtocolLimits)}.
   *
   * @throws IllegalArgumentException if the response breaks a limit; nothing is written then
   * @throws BufferOverflowException if the buffer has too little room; nothing is written then
   */
  public static void encode(Response response, ByteBuffer out, ProtocolLimits limits) {
    putResponse(startFrame(out, responseBodySize(response, limits), limits), response);
  }

  /**
   * The response's frame as a new array.
   *
   * @throws IllegalArgumentException if the response breaks a limit
   */
  public static byte[] encode(Response response, ProtocolLimits limits) {
    ByteBuffer out = newFrame(responseBodySize(response, limits), limits);
    putResponse(out, response);
    return out.array();
  }

  /**
   * Writes the request's frame in one {@code write} call. To pipeline, write several requests
   * into a {@link java.io.BufferedOutputStream} and flush once.
   *
   * @throws IllegalArgumentException if the request breaks a limit; nothing is written then
   */
  public static void writeRequest(OutputStream out, Request request, ProtocolLimits limits) throws IOException {
    out.write(encode(request, limits));
  }

  /**
   * Writes the response's frame in one {@code write} call.
   *
   * @throws IllegalArgumentException if the response breaks a limit; nothing is written then
   */
  public static void writeResponse(OutputStream out, Response response, ProtocolLimits limits) throws IOException {
    out.write(encode(response, limits));
  }

  /** The body size as a long (a huge batch can pass 2 GiB); checks the limits unless null. */
  private static long requestBodySize(Request request, ProtocolLimits limits) {
    return switch (request) {
      case Request.Get get -> 1 + keyField(get.key(), limits);
      case Request.Set set -> 1 + keyField(set.key(), limits) + valueField(set.value(), limits);
      case Request.Delete delete -> 1 + keyField(delete.key(), limits);
      case Request.Ping ping -> 1;
      case Request.Batch batch -> {
        long size = batchHeader(batch.ops().size(), limits);
        for (Request op : batch.ops()) {
          size += requestBodySize(op, limits);
        }
        yield size;
      }
    };
  }

  private static long responseBodySize(Response response, ProtocolLimits limits) {
    return switch (response) {
      case Response.Value value -> 1 + valueField(value.value(), limits);
      case Response.NotFound notFound -> 1;
      case Response.Ok ok -> 1;
      case Response.Error error -> 1 + LENGTH_BYTES + error.message().getBytes(UTF_8).length;
      case Response.Batch batch -> {
        long size = batchHeader(batch.replies().size(), limits);
        for (Response reply : batch.replies()) {
          size += responseBodySize(reply, limits);
        }
        yield size;
      }
    };
  }

  private static long keyField(ByteArrayWrapper key, ProtocolLimits limits) {
    if (limits != null && key.length() > limits.maxKeyBytes()) {
      throw new IllegalArgumentException(overLimit("key", key.length(), limits.maxKeyBytes()));
    }
    return LENGTH_BYTES + key.length();
  }

  private static long valueField(ByteArrayWrapper value, ProtocolLimits limits) {
    if (limits != null && value.length() > limits.maxValueBytes()) {
      throw new IllegalArgumentException(overLimit("value", value.length(), limits.maxValueBytes()));
    }
    return LENGTH_BYTES + value.length();
  }

  /** The type byte and count of a batch of {@code count} items. */
  private static long batchHeader(int count, ProtocolLimits limits) {
    if (limits != null && count > limits.maxBatchOps()) {
      throw new IllegalArgumentException(batchOverLimit(count, limits.maxBatchOps()));
    }
    return 1 + LENGTH_BYTES;
  }

  /** Checks the frame limit and the room in {@code out}, then writes the header; returns {@code out}. */
  private static ByteBuffer startFrame(ByteBuffer out, long bodySize, ProtocolLimits limits) {
    int checked = checkBodySize(bodySize, limits);
    if (out.remaining() < HEADER_BYTES + checked) {
      throw new BufferOverflowException();
    }
    putU32(out, checked);
    return out;
  }

  /** A big-endian buffer of exactly the frame's size, its header written. */
  private static ByteBuffer newFrame(long bodySize, ProtocolLimits limits) {
    int checked = checkBodySize(bodySize, limits);
    return ByteBuffer.allocate(HEADER_BYTES + checked).putInt(checked);
  }

  private static int checkBodySize(long bodySize, ProtocolLimits limits) {
    if (bodySize > limits.maxFrameBytes()) {
      throw new IllegalArgumentException(frameOverLimit(bodySize, limits.maxFrameBytes()));
    }
    return (int) bodySize;
  }

  private static int frameSize(long bodySize) {
    if (bodySize > ProtocolLimits.MAX_FRAME_CEILING) {
      throw new IllegalArgumentException("a frame of " + bodySize + " body bytes does not fit in one Java array");
    }
    return HEADER_BYTES + (int) bodySize;
  }

  private static void putRequest(ByteBuffer out, Request request) {
    switch (request) {
      case Request.Get get -> {
        out.put(GET);
        putField(out, get.key().getArray());
      }
      case Request.Set set -> {
        out.put(SET);
        putField(out, set.key().getArray());
        putField(out, set.value().getArray());
      }
      case Request.Delete delete -> {
        out.put(DELETE);
        putField(out, delete.key().getArray());
      }
      case Request.Ping ping -> out.put(PING);
      case Request.Batch batch -> {
        out.put(BATCH);
        putU32(out, batch.ops().size());
        for (Request op : batch.ops()) {
          putRequest(out, op);
        }
      }
    }
  }

  private static void putResponse(ByteBuffer out, Response response) {
    switch (response) {
      case Response.Value value -> {
        out.put(VALUE);
        putField(out, value.value().getArray());
      }
      case Response.NotFound notFound -> out.put(NOT_FOUND);
      case Response.Ok ok -> out.put(OK);
      case Response.Error error -> {
        out.put(ERROR);
        putField(out, error.message().getBytes(UTF_8));
      }
      case Response.Batch batch -> {
        out.put(BATCH);
        putU32(out, batch.replies().size());
        for (Response reply : batch.replies()) {
          putResponse(out, reply);
        }
      }
    }
  }

  private static void putField(ByteBuffer out, byte[] bytes) {
    putU32(out, bytes.length);
    out.put(bytes);
  }

  /** Big-endian, even into a buffer the caller set to little-endian. */
  private static void putU32(ByteBuffer out, int value) {
    out.putInt(out.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value));
  }

  // ---------------------------------------------------------------------------------------------
  // Decoding

  /**
   * Decodes the next request frame from the buffer's position, for event loops that read into a
   * buffer as bytes arrive. The buffer's own byte order does not matter.
   *
   * @return {@link DecodeResult.Incomplete} (nothing consumed), {@link DecodeResult.Frame} or
   *     {@link DecodeResult.Invalid} (the whole frame consumed either way)
   * @throws ProtocolException if the length header is above {@link ProtocolLimits#maxFrameBytes()}
   *     (a negative int counts as above): fatal, nothing consumed
   */
  public static DecodeResult<Request> decodeRequest(ByteBuffer in, ProtocolLimits limits) throws ProtocolException {
    return decode(in, limits, V2Codec::parseRequest);
  }

  /** Decodes the next response frame; see {@link #decodeRequest(ByteBuffer, ProtocolLimits)}. */
  public static DecodeResult<Response> decodeResponse(ByteBuffer in, ProtocolLimits limits) throws ProtocolException {
    return decode(in, limits, V2Codec::parseResponse);
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
    return parse(readBody(in, limits), limits, V2Codec::parseRequest);
  }

  /** Reads the next response frame; see {@link #readRequest(InputStream, ProtocolLimits)}. */
  public static DecodeResult.Complete<Response> readResponse(InputStream in, ProtocolLimits limits)
      throws IOException {
    return parse(readBody(in, limits), limits, V2Codec::parseResponse);
  }

  private static <T> DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits, BodyParser<T> parser)
      throws ProtocolException {
    if (in.remaining() < HEADER_BYTES) {
      return new DecodeResult.Incomplete<>(HEADER_BYTES);
    }
    int start = in.position();
    int raw = in.getInt(start);
    int bodySize = checkFrameLength(in.order() == ByteOrder.BIG_ENDIAN ? raw : Integer.reverseBytes(raw), limits);
    if (in.remaining() - HEADER_BYTES < bodySize) {
      return new DecodeResult.Incomplete<>(HEADER_BYTES + bodySize);
    }
    // The slice is big-endian whatever the caller's order, and ends exactly where the frame does.
    ByteBuffer body = in.slice(start + HEADER_BYTES, bodySize);
    in.position(start + HEADER_BYTES + bodySize);
    return parse(body, limits, parser);
  }

  private static ByteBuffer readBody(InputStream in, ProtocolLimits limits) throws IOException {
    byte[] header = new byte[HEADER_BYTES];
    int got = in.readNBytes(header, 0, HEADER_BYTES);
    if (got == 0) {
      throw new CleanEofException("stream ended between frames");
    }
    if (got < HEADER_BYTES) {
      throw new EOFException("stream ended mid-frame, after " + got + " of the " + HEADER_BYTES + " length bytes");
    }
    int bodySize = checkFrameLength(ByteBuffer.wrap(header).getInt(), limits);
    byte[] body = new byte[Math.min(bodySize, READ_CHUNK_BYTES)];
    int filled = 0;
    while (true) {
      filled += in.readNBytes(body, filled, body.length - filled);
      if (filled < body.length) {
        throw new EOFException("stream ended mid-frame, after " + filled + " of " + bodySize + " body bytes");
      }
      if (filled == bodySize) {
        return ByteBuffer.wrap(body);
      }
      body = Arrays.copyOf(body, (int) Math.min(bodySize, 2L * body.length));
    }
  }

  private static int checkFrameLength(int bodySize, ProtocolLimits limits) throws ProtocolException {
    if (bodySize < 0 || bodySize > limits.maxFrameBytes()) {
      throw new ProtocolException(frameOverLimit(Integer.toUnsignedLong(bodySize), limits.maxFrameBytes()));
    }
    return bodySize;
  }

  private static <T> DecodeResult.Complete<T> parse(ByteBuffer body, ProtocolLimits limits, BodyParser<T> parser) {
    try {
      return new DecodeResult.Frame<>(parser.parse(body, limits));
    } catch (Malformed e) {
      return new DecodeResult.Invalid<>(e.getMessage());
    }
  }

  /** Parses one whole frame body; throws {@link Malformed} for anything wrong inside it. */
  private interface BodyParser<T> {
    T parse(ByteBuffer body, ProtocolLimits limits);
  }

  /** Parses the fields of one batch item whose type byte has been read. */
  private interface ItemParser<T> {
    T parse(byte type, ByteBuffer body, ProtocolLimits limits);
  }

  private static Request parseRequest(ByteBuffer body, ProtocolLimits limits) {
    byte type = firstType(body);
    Request request = switch (type) {
      case PING -> PING_REQUEST;
      case BATCH -> new Request.Batch(parseBatch(body, limits, MIN_BATCH_OP_BYTES, "op", "ops", V2Codec::parseOperation));
      default -> parseOperation(type, body, limits);
    };
    requireEnd(body, type);
    return request;
  }

  /** GET, SET or DELETE: the requests that may stand alone or in a batch. */
  private static Request parseOperation(byte type, ByteBuffer body, ProtocolLimits limits) {
    return switch (type) {
      case GET -> new Request.Get(field(body, "key", limits.maxKeyBytes()));
      case SET -> new Request.Set(field(body, "key", limits.maxKeyBytes()), field(body, "value", limits.maxValueBytes()));
      case DELETE -> new Request.Delete(field(body, "key", limits.maxKeyBytes()));
      case PING, BATCH -> throw new Malformed("a " + typeName(type) + " cannot be inside a batch");
      default -> throw new Malformed("unknown request type " + describe(type));
    };
  }

  private static Response parseResponse(ByteBuffer body, ProtocolLimits limits) {
    byte type = firstType(body);
    Response response = type == BATCH
        ? new Response.Batch(parseBatch(body, limits, MIN_BATCH_REPLY_BYTES, "reply", "replies", V2Codec::parseReply))
        : parseReply(type, body, limits);
    requireEnd(body, type);
    return response;
  }

  /** VALUE, NOT_FOUND, OK or ERROR: the responses that may stand alone or in a batch. */
  private static Response parseReply(byte type, ByteBuffer body, ProtocolLimits limits) {
    return switch (type) {
      case VALUE -> new Response.Value(field(body, "value", limits.maxValueBytes()));
      case NOT_FOUND -> NOT_FOUND_RESPONSE;
      case OK -> OK_RESPONSE;
      // Malformed UTF-8 becomes U+FFFD: a garbled message is still worth showing.
      case ERROR -> new Response.Error(new String(field(body, "error message", limits.maxFrameBytes()).getArray(), UTF_8));
      case BATCH -> throw new Malformed("a BATCH cannot be inside a batch");
      default -> throw new Malformed("unknown response type " + describe(type));
    };
  }

  /**
   * A batch's count and items. The count is checked against the limit, and the list is never sized
   * beyond what the body can hold (every item takes at least {@code minItemBytes}), so a count of
   * four billion costs nothing before it is refused.
   */
  private static <T> List<T> parseBatch(
      ByteBuffer body, ProtocolLimits limits, int minItemBytes, String item, String items, ItemParser<T> parser) {
    int count = u32(body, "batch count");
    if (count < 0 || count > limits.maxBatchOps()) {
      throw new Malformed(batchOverLimit(Integer.toUnsignedLong(count), limits.maxBatchOps()));
    }
    List<T> parsed = new ArrayList<>(Math.min(count, body.remaining() / minItemBytes));
    for (int i = 0; i < count; i++) {
      if (!body.hasRemaining()) {
        throw new Malformed("the frame ends after " + i + " of the batch's " + count + " " + items
            + " (is the count larger than the " + items + " sent?)");
      }
      try {
        parsed.add(parser.parse(body.get(), body, limits));
      } catch (Malformed e) {
        throw new Malformed("batch " + item + " " + i + ": " + e.getMessage());
      }
    }
    return parsed;
  }

  private static byte firstType(ByteBuffer body) {
    if (!body.hasRemaining()) {
      throw new Malformed("empty frame: a frame body starts with a type byte");
    }
    return body.get();
  }

  private static void requireEnd(ByteBuffer body, byte type) {
    int left = body.remaining();
    if (left > 0) {
      String hint = type == BATCH ? " (is its count smaller than the items sent?)" : "";
      throw new Malformed(left + (left == 1 ? " trailing byte" : " trailing bytes") + " after the "
          + typeName(type) + hint);
    }
  }

  /** A field: its u32 length, checked against what is left and the limit, then that many bytes. */
  private static ByteArrayWrapper field(ByteBuffer body, String what, int limit) {
    long length = Integer.toUnsignedLong(u32(body, what + " length"));
    if (length > body.remaining()) {
      throw new Malformed(what + " of " + length + " bytes runs past the end of the frame ("
          + body.remaining() + " bytes left)");
    }
    if (length > limit) {
      throw new Malformed(overLimit(what, length, limit));
    }
    byte[] bytes = new byte[(int) length];
    body.get(bytes);
    return new ByteArrayWrapper(bytes);
  }

  private static int u32(ByteBuffer body, String what) {
    if (body.remaining() < LENGTH_BYTES) {
      throw new Malformed("the frame ends inside the " + what + " (" + body.remaining() + " of "
          + LENGTH_BYTES + " bytes)");
    }
    return body.getInt();
  }

  // ---------------------------------------------------------------------------------------------
  // Messages, shared by the writer's refusals and the reader's Invalid results

  private static String overLimit(String what, long size, int limit) {
    return what + " of " + size + " bytes exceeds the " + limit + "-byte limit";
  }

  private static String batchOverLimit(long count, int limit) {
    return "batch of " + count + " ops exceeds the " + limit + "-op limit";
  }

  private static String frameOverLimit(long bodySize, int limit) {
    return "frame of " + bodySize + " bytes exceeds the " + limit + "-byte limit";
  }

  private static String typeName(byte type) {
    return switch (type) {
      case GET -> "GET";
      case SET -> "SET";
      case DELETE -> "DELETE";
      case PING -> "PING";
      case BATCH -> "BATCH";
      case VALUE -> "VALUE";
      case NOT_FOUND -> "NOT_FOUND";
      case OK -> "OK";
      case ERROR -> "ERROR";
      default -> describe(type);
    };
  }

  /** {@code 0x78 ('x')} for printable ASCII, {@code 0x9c} otherwise. */
  private static String describe(byte type) {
    return type >= 0x20 && type < 0x7f
        ? String.format("0x%02x ('%c')", type, (char) type)
        : String.format("0x%02x", type & 0xff);
  }

  /**
   * Something inside a complete frame is wrong. Thrown from deep in the parser and caught once per
   * frame, where it becomes {@link DecodeResult.Invalid}; no stack trace, as it is not a bug.
   */
  private static final class Malformed extends RuntimeException {
    Malformed(String message) {
      super(message, null, false, false);
    }
  }
}
