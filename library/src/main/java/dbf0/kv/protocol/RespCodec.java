package dbf0.kv.protocol;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.primitives.Ints;
import com.google.common.primitives.Longs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * RESP, the Redis serialization protocol, as far as a server needs it: parsing the commands clients
 * send (the same in RESP2 and RESP3), and encoding the five RESP2 reply types and the RESP3 ones
 * dbf0's commands use (null, map, verbatim string). Pure functions over buffers, no sockets.
 *
 * <pre>
 *  command (what redis-cli and redis-benchmark send): an array of bulk strings
 *     *2\r\n $3\r\n GET\r\n $3\r\n key\r\n
 *  inline command (what a person types into telnet): one line, words separated by spaces
 *     PING\r\n
 *  replies:  +OK\r\n (simple string)   -ERR message\r\n (error)   :42\r\n (integer)
 *            $5\r\n hello\r\n (bulk string)   $-1\r\n (null)   *2\r\n ... (array)
 *  RESP3 adds: _\r\n (the one null)   %1\r\n key value (map)   =7\r\n txt:abc\r\n (verbatim)
 * </pre>
 *
 * Every length a client sends is checked before anything is allocated for it: a bulk string above
 * {@code maxBulkBytes}, an array above {@code maxArgs} elements or an inline line above {@code
 * maxInlineBytes} is a {@link ProtocolException}, after which the connection cannot be trusted and
 * is closed (as Redis does).
 */
public final class RespCodec {

    private static final byte[] CRLF = {'\r', '\n'};

    private RespCodec() {}

    /**
     * Parses the command at the front of {@code in} (read mode).
     *
     * @return a {@link DecodeResult.Frame} holding the command's arguments (none, for a blank
     *     inline line), consumed; or {@link DecodeResult.Incomplete}, consuming nothing. Never
     *     {@link DecodeResult.Invalid}: a RESP error breaks the framing, so it is thrown. Every
     *     call starts the command again, so a server receiving a large command in pieces keeps a
     *     {@link Parser} per connection instead.
     * @throws ProtocolException for malformed or over-limit input; the caller replies with the
     *     message as an error and closes
     */
    public static DecodeResult<List<byte[]>> parse(
            ByteBuffer in, int maxArgs, int maxBulkBytes, int maxInlineBytes)
            throws ProtocolException {
        int start = in.position();
        DecodeResult<List<byte[]>> parsed =
                new Parser(maxArgs, maxBulkBytes, maxInlineBytes, Long.MAX_VALUE).next(in);
        if (parsed instanceof DecodeResult.Incomplete<List<byte[]>>(int neededBytes)) {
            int consumed = in.position() - start;
            in.position(start);
            return incomplete((long) consumed + neededBytes);
        }
        return parsed;
    }

    /**
     * A connection's parser. It consumes each argument of an array as soon as it is complete and
     * keeps it, and remembers how far it has searched an inline line for its end, so a command that
     * arrives in many reads is examined once: work is linear in its size, where restarting at every
     * read is quadratic (a DEL of a million keys arriving 64 KiB at a time).
     *
     * <p>{@link DecodeResult.Incomplete} here means "nothing more to do until more bytes arrive":
     * unlike the other decoders, the bytes of finished arguments are consumed, and {@code
     * neededBytes} counts from the new position.
     */
    public static final class Parser {

        private final int maxArgs;
        private final int maxBulkBytes;
        private final int maxInlineBytes;
        private final long maxCommandBytes;
        private List<byte[]> args; // non-null while inside an array
        private long argsLeft;
        private long commandBytes;
        private int
                inlineSearched; // bytes of an unfinished inline line already searched for its end
        private long examined;

        /**
         * @param maxCommandBytes an array command's bytes on the wire, all arguments together: the
         *     arguments are kept in memory until the command is complete, so this bounds them
         */
        public Parser(int maxArgs, int maxBulkBytes, int maxInlineBytes, long maxCommandBytes) {
            this.maxArgs = maxArgs;
            this.maxBulkBytes = maxBulkBytes;
            this.maxInlineBytes = maxInlineBytes;
            this.maxCommandBytes = maxCommandBytes;
        }

        /** True while an array's arguments are still arriving. */
        public boolean inArray() {
            return args != null;
        }

        /** Bytes looked at so far, over all commands: a test's measure of parsing work. */
        public long examined() {
            return examined;
        }

        /**
         * The next command's arguments, or Incomplete (see the class comment for what is consumed);
         * never Invalid, as for {@link RespCodec#parse}.
         */
        public DecodeResult<List<byte[]>> next(ByteBuffer in) throws ProtocolException {
            if (args == null) {
                if (!in.hasRemaining()) {
                    return incomplete(1);
                }
                if (in.get(in.position()) != '*') {
                    return inline(in);
                }
                int at = in.position();
                int lineEnd = findCrlf(in, at, 32);
                examined += (lineEnd < 0 ? in.limit() : lineEnd + 2) - at;
                if (lineEnd < 0) {
                    return incomplete(in.remaining() + 1L);
                }
                long count = parseNumber(in, at + 1, lineEnd, "multibulk length");
                if (count > maxArgs) {
                    throw new ProtocolException(
                            "Protocol error: invalid multibulk length "
                                    + count
                                    + " (at most "
                                    + maxArgs
                                    + ")");
                }
                in.position(lineEnd + 2);
                commandBytes = lineEnd + 2 - at;
                args = new ArrayList<>((int) Longs.constrainToRange(count, 0, 1024));
                argsLeft = count;
            }
            while (argsLeft > 0) {
                int at = in.position();
                if (at >= in.limit()) {
                    return incomplete(1);
                }
                if (in.get(at) != '$') {
                    throw new ProtocolException(
                            "Protocol error: expected '$', got '" + printable(in.get(at)) + "'");
                }
                int end = findCrlf(in, at, 32);
                if (end < 0) {
                    examined += in.limit() - at;
                    return incomplete(in.remaining() + 32L);
                }
                long length = parseNumber(in, at + 1, end, "bulk length");
                if (length < 0 || length > maxBulkBytes) {
                    throw new ProtocolException(
                            "Protocol error: invalid bulk length "
                                    + length
                                    + " (at most "
                                    + maxBulkBytes
                                    + ")");
                }
                int dataStart = end + 2;
                long frameEnd = (long) dataStart + length + 2;
                if (commandBytes + (frameEnd - at) > maxCommandBytes) {
                    throw new ProtocolException(
                            "Protocol error: command longer than " + maxCommandBytes + " bytes");
                }
                if (frameEnd > in.limit()) {
                    examined +=
                            dataStart
                                    - at; // parsed again when the data is here: at most 34 bytes a
                    // read
                    return incomplete(frameEnd - at);
                }
                int dataEnd = dataStart + (int) length;
                if (in.get(dataEnd) != '\r' || in.get(dataEnd + 1) != '\n') {
                    throw new ProtocolException("Protocol error: bulk string not followed by CRLF");
                }
                byte[] arg = new byte[(int) length];
                in.get(dataStart, arg);
                args.add(arg);
                examined += frameEnd - at;
                commandBytes += frameEnd - at;
                in.position((int) frameEnd);
                argsLeft--;
            }
            List<byte[]> done = args;
            args = null;
            return new DecodeResult.Frame<>(done);
        }

        private DecodeResult<List<byte[]>> inline(ByteBuffer in) throws ProtocolException {
            int at = in.position();
            int newline = -1;
            int scanEnd = Math.min(in.limit(), at + maxInlineBytes + 2);
            for (int i = at + inlineSearched; i < scanEnd; i++) {
                examined++;
                if (in.get(i) == '\n') {
                    newline = i;
                    break;
                }
            }
            // One rule whatever the split: the line without its "\r\n" or "\n" may hold
            // maxInlineBytes. Before the newline arrives, refuse only what can no longer end within
            // the limit.
            if (newline < 0) {
                int buffered = in.limit() - at;
                if (buffered > maxInlineBytes + 1
                        || (buffered == maxInlineBytes + 1 && in.get(in.limit() - 1) != '\r')) {
                    throw tooBigInline();
                }
                inlineSearched = Math.max(0, scanEnd - at);
                return incomplete(in.remaining() + 1L);
            }
            inlineSearched = 0;
            int contentEnd = newline > at && in.get(newline - 1) == '\r' ? newline - 1 : newline;
            if (contentEnd - at > maxInlineBytes) {
                throw tooBigInline();
            }
            return splitInline(in, at, newline);
        }

        private ProtocolException tooBigInline() {
            return new ProtocolException(
                    "Protocol error: too big inline request (at most "
                            + maxInlineBytes
                            + " bytes)");
        }
    }

    /** Splits the inline line ending at {@code newline} into words, and consumes it. */
    private static DecodeResult<List<byte[]>> splitInline(ByteBuffer in, int at, int newline) {
        int end = newline > at && in.get(newline - 1) == '\r' ? newline - 1 : newline;
        byte[] line = new byte[end - at];
        in.get(at, line);
        in.position(newline + 1);
        List<byte[]> args = new ArrayList<>();
        int i = 0;
        while (i < line.length) {
            while (i < line.length && (line[i] == ' ' || line[i] == '\t')) {
                i++;
            }
            int start = i;
            while (i < line.length && line[i] != ' ' && line[i] != '\t') {
                i++;
            }
            if (i > start) {
                byte[] word = new byte[i - start];
                System.arraycopy(line, start, word, 0, word.length);
                args.add(word);
            }
        }
        return new DecodeResult.Frame<>(args);
    }

    private static DecodeResult<List<byte[]>> incomplete(long neededBytes) {
        return new DecodeResult.Incomplete<>(Ints.saturatedCast(neededBytes));
    }

    /**
     * Index of the CR of the first CRLF at or after {@code from}, looking at most {@code maxLine}
     * bytes; -1 if none yet.
     */
    private static int findCrlf(ByteBuffer in, int from, int maxLine) throws ProtocolException {
        int end = Math.min(in.limit() - 1, from + maxLine);
        for (int i = from; i < end; i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                return i;
            }
        }
        if (in.limit() - from > maxLine) {
            throw new ProtocolException("Protocol error: header line too long");
        }
        return -1;
    }

    private static long parseNumber(ByteBuffer in, int from, int to, String what)
            throws ProtocolException {
        if (from >= to) {
            throw new ProtocolException("Protocol error: empty " + what);
        }
        boolean negative = in.get(from) == '-';
        long value = 0;
        for (int i = negative ? from + 1 : from; i < to; i++) {
            byte b = in.get(i);
            if (b < '0' || b > '9' || value > Integer.MAX_VALUE) {
                throw new ProtocolException("Protocol error: invalid " + what);
            }
            value = value * 10 + (b - '0');
        }
        return negative ? -value : value;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f
                ? String.valueOf((char) b)
                : String.format("\\x%02x", b & 0xff);
    }

    // Replies -------------------------------------------------------------------------------------

    public static byte[] simple(String text) {
        return ("+" + text + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /** An error reply; the text should start with an error code such as ERR or WRONGTYPE. */
    public static byte[] error(String text) {
        String line = "-" + text.replace('\r', ' ').replace('\n', ' ') + "\r\n";
        return line.getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] integer(long value) {
        return (":" + value + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    public static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);

    /** Writes a bulk string, or the null bulk string for null. */
    public static void putBulk(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.put(NULL_BULK);
            return;
        }
        putHeader(out, (byte) '$', bytes.length);
        out.put(bytes).put(CRLF);
    }

    /**
     * Writes {@code prefix}, the decimal {@code n} and CRLF ({@code $5\r\n}, {@code :1\r\n}), digit
     * by digit: no string is made for a number on the reply path.
     */
    public static void putHeader(ByteBuffer out, byte prefix, long n) {
        out.put(prefix);
        if (n < 0) {
            out.put((byte) '-');
            n = -n;
        }
        int end = out.position() + digits(n);
        for (int i = end - 1; i >= out.position(); i--) {
            out.put(i, (byte) ('0' + n % 10));
            n /= 10;
        }
        out.position(end);
        out.put(CRLF);
    }

    /** Bytes {@link #putHeader} will write. */
    public static int headerSize(long n) {
        return 1 + (n < 0 ? 1 : 0) + digits(Math.abs(n)) + 2;
    }

    /** Bytes {@link #putBulk} will write. */
    public static int bulkSize(byte[] bytes) {
        return bytes == null ? NULL_BULK.length : 1 + digits(bytes.length) + 2 + bytes.length + 2;
    }

    public static byte[] arrayHeader(int count) {
        return ("*" + count + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    // RESP3 replies, for connections that switched with HELLO 3 --------------------------------

    /** RESP3's one null, where RESP2 has a null bulk string and a null array. */
    public static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);

    /** A RESP3 map of {@code pairs} key/value pairs; the 2 * pairs elements follow, key first. */
    public static byte[] mapHeader(int pairs) {
        return ("%" + pairs + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Writes a RESP3 verbatim string: like a bulk string, with a three-letter format ("txt" or
     * "mkd") and a colon before the text, all counted in the length.
     */
    public static void putVerbatim(ByteBuffer out, String format, byte[] text) {
        checkArgument(
                format.length() == 3,
                "a verbatim string's format has three characters: %s",
                format);
        out.put((byte) '=')
                .put(Integer.toString(text.length + 4).getBytes(StandardCharsets.US_ASCII));
        out.put(CRLF);
        out.put(format.getBytes(StandardCharsets.US_ASCII)).put((byte) ':').put(text).put(CRLF);
    }

    /** Bytes {@link #putVerbatim} will write. */
    public static int verbatimSize(byte[] text) {
        return 1 + digits(text.length + 4) + 2 + 4 + text.length + 2;
    }

    /** Decimal digits of {@code n} (0 to {@link Long#MAX_VALUE}), counted without a string. */
    private static int digits(long n) {
        int digits = 1;
        for (long bound = 10; digits < 19 && n >= bound; bound *= 10) {
            digits++;
        }
        return digits;
    }
}
