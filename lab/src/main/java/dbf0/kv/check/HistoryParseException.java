package dbf0.kv.check;

/** A history file that cannot be read as its format says; the message names the file and line. */
public final class HistoryParseException extends Exception {

    private final String source;
    private final long line;
    private final String problem;

    public HistoryParseException(String source, long line, String problem) {
        super(source + (line > 0 ? ":" + line : "") + ": " + problem);
        this.source = source;
        this.line = line;
        this.problem = problem;
    }

    /** What is wrong, without the file and line. */
    public String problem() {
        return problem;
    }

    public String source() {
        return source;
    }

    /** 1-based; 0 when the problem is not on one line. */
    public long line() {
        return line;
    }
}
