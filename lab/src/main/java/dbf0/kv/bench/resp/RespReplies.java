package dbf0.kv.bench.resp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads one RESP reply at a time from a server's byte stream, keeping only what a load generator
 * needs: its type, an integer's value and an error's text. A bulk string's bytes are skipped, not
 * stored, so a reply of any announced length costs no memory; a line (status, error, integer,
 * header) longer than {@link #MAX_LINE} bytes is a protocol error rather than a buffer that grows
 * as the peer says.
 */
final class RespReplies {

    /** The longest reply line read: Redis's error lines are well under this. */
    static final int MAX_LINE = 4096;

    /**
     * One reply.
     *
     * @param type the RESP type byte: {@code +} status, {@code -} error, {@code :} integer, {@code
     *     $} bulk string (null included)
     * @param integer an integer reply's value, or a bulk string's length (-1 for null); 0 otherwise
     * @param text a status or error reply's text; empty otherwise
     */
    record Reply(char type, long integer, String text) {
        boolean isError() {
            return type == '-';
        }
    }

    private final InputStream in;
    private final byte[] line = new byte[MAX_LINE];

    RespReplies(InputStream in) {
        this.in = in;
    }

    /**
     * The next reply. Arrays, which neither SET, GET nor WAIT return, are refused.
     *
     * @throws IOException if the stream ends, or holds something that is not one of those replies
     */
    Reply next() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("the server closed the connection");
        }
        String rest = readLine();
        switch (type) {
            case '+', '-' -> {
                return new Reply((char) type, 0, rest);
            }
            case ':' -> {
                return new Reply(':', number(rest), "");
            }
            case '$' -> {
                long length = number(rest);
                if (length >= 0) {
                    skip(length + 2); // the bytes and their \r\n
                }
                return new Reply('$', length, "");
            }
            default ->
                    throw new IOException(
                            "unexpected reply starting with '"
                                    + (char) type
                                    + "' ("
                                    + type
                                    + "); only +, -, : and $ replies are expected");
        }
    }

    /** The rest of a line, without its \r\n. */
    private String readLine() throws IOException {
        int n = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the server closed the connection inside a reply");
            }
            if (b == '\n' && n > 0 && line[n - 1] == '\r') {
                return new String(line, 0, n - 1, StandardCharsets.UTF_8);
            }
            if (n == MAX_LINE) {
                throw new IOException("a reply line longer than " + MAX_LINE + " bytes");
            }
            line[n++] = (byte) b;
        }
    }

    private static long number(String text) throws IOException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException("a reply's number is not a number: '" + text + "'", e);
        }
    }

    private void skip(long count) throws IOException {
        long left = count;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new EOFException("the server closed the connection inside a reply");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }
}
