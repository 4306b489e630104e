package dbf0.kv.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The lines of UTF-8 bytes, as {@link BufferedReader#readLine} gives them from {@code
 * Files.newBufferedReader(file, UTF_8)}: ended by {@code \n}, {@code \r} or {@code \r\n}, a last
 * line without an end included, and malformed UTF-8 an error. Read from the bytes themselves: a
 * reader decodes every line into a char array and copies it back into a compact string, which in a
 * JVM just started is a fifth of what parsing a kv history costs.
 */
final class Lines {

    /** Where a parser takes its lines from: {@link #readLine}, or a {@link BufferedReader}'s. */
    @FunctionalInterface
    interface Source {
        /** The next line, without its end; null after the last. */
        String readLine() throws IOException;
    }

    private final byte[] bytes;
    private final boolean whole;
    private int at;

    /**
     * @param whole whether {@code bytes} is all of the text; if it is only its start, a last line
     *     without an end may be cut short, and is not given
     */
    Lines(byte[] bytes, boolean whole) {
        this.bytes = bytes;
        this.whole = whole;
    }

    /** Every line of {@code file}, read at once. */
    static Lines of(Path file) throws IOException {
        return new Lines(Files.readAllBytes(file), true);
    }

    /** The next line, without its end; null after the last. */
    String readLine() throws IOException {
        if (at >= bytes.length) {
            return null;
        }
        int start = at;
        int end = start;
        while (end < bytes.length && bytes[end] != '\n' && bytes[end] != '\r') {
            end++;
        }
        if (end == bytes.length && !whole) {
            return null; // perhaps cut short
        }
        at = end + 1;
        if (end + 1 < bytes.length && bytes[end] == '\r' && bytes[end + 1] == '\n') {
            at++;
        }
        String line = new String(bytes, start, end - start, StandardCharsets.UTF_8);
        // The constructor replaces malformed input with U+FFFD where a reader fails: decode
        // again, strictly, to fail alike (or to keep a U+FFFD that was really there).
        return line.indexOf('\uFFFD') < 0 ? line : strict(start, end);
    }

    private String strict(int start, int end) throws IOException {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, start, end - start))
                .toString();
    }
}
