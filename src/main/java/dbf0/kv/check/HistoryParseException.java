package dbf0.kv.check;



/** A history file that cannot be read as its format says; the message names the file and line. */
public final class HistoryParseException extends Exception {

  private final String source;
  private final long line;

  public HistoryParseException(String source, long line, String problem) {
    super(source + (line > 0 ? ":" + line : "") + ": " + problem);
    this.source = source;
    this.line = line;
  }

  public String source() {
    return source;
  }

  /** 1-based; 0 when the problem is not on one line. */
  public long line() {
    return line;
  }
}
