package dbf0.kv.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The history formats {@code dbf0 check} reads, by the name the command line gives them, and how to
 * tell them apart from a file's first lines (so that one run can check files of several formats).
 */
public enum HistoryFormat {
    DBF0,
    ETCD,
    KV;

    /** How many lines {@link #detect} reads before it gives up: an etcd log may open with a few. */
    static final int DETECT_LINES = 1000;

    /** How many bytes {@link #detect} reads first, which usually hold the lines it looks at. */
    static final int DETECT_BYTES = 64 * 1024;

    /** The name on the command line ({@code dbf0}, {@code etcd}, {@code kv}). */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The model this format's operations follow. */
    public String modelName() {
        return this == ETCD ? "register" : "kv";
    }

    public History<?, ?, ?> parse(BufferedReader in, String source)
            throws IOException, HistoryParseException {
        return switch (this) {
            case DBF0 -> Dbf0HistoryFormat.parse(in, source);
            case ETCD -> EtcdLogFormat.parse(in, source);
            case KV -> KvEdnFormat.parse(in, source);
        };
    }

    /**
     * Reads {@code file}: a Jepsen one all at once ({@link Lines}), a dbf0 one line by line, as it
     * may be hundreds of megabytes (a million operations).
     */
    public History<?, ?, ?> parse(Path file) throws IOException, HistoryParseException {
        return switch (this) {
            case ETCD -> EtcdLogFormat.parse(Lines.of(file)::readLine, file.toString());
            case KV -> KvEdnFormat.parse(Lines.of(file)::readLine, file.toString());
            case DBF0 -> {
                try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    yield parse(in, file.toString());
                }
            }
        };
    }

    /**
     * Guesses a file's format from its first operation line: a JSON object ({@code {"}) is dbf0's,
     * an EDN map ({@code {:}) Jepsen's key/value format, a {@code jepsen.util - P :type} line an
     * etcd log. Null when none of the first {@value #DETECT_LINES} lines says.
     */
    public static HistoryFormat detect(Path file) throws IOException {
        // The first lines are in the file's first bytes: read those, and the file line by line
        // only if they end before the lines to look at do.
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(DETECT_BYTES);
        }
        Lines lines = new Lines(head, head.length < DETECT_BYTES);
        int n = 0;
        for (String line; n < DETECT_LINES && (line = lines.readLine()) != null; n++) {
            HistoryFormat f = detectLine(line);
            if (f != null) {
                return f;
            }
        }
        if (n == DETECT_LINES || head.length < DETECT_BYTES) {
            return null;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            for (n = 0; n < DETECT_LINES && (line = in.readLine()) != null; n++) {
                HistoryFormat f = detectLine(line);
                if (f != null) {
                    return f;
                }
            }
            return null;
        }
    }

    static HistoryFormat detectLine(String line) {
        String s = line.strip();
        if (s.startsWith("{")) {
            String rest = s.substring(1).stripLeading();
            if (rest.startsWith("\"")) {
                return DBF0;
            }
            if (rest.startsWith(":")) {
                return KV;
            }
            return null;
        }
        int at = s.indexOf("jepsen.util");
        if (at >= 0 && s.indexOf(':', at) > 0) {
            return ETCD;
        }
        return null;
    }
}
