package dbf0.common;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs one line per event, but at most {@code perSecond} lines a second: a client hammering the
 * server with garbage must not turn the log into a flood. Suppressed lines are counted and the
 * count is reported with the next line that gets through.
 */
public final class RateLimitedLog {

  private final Logger logger;
  private final int perSecond;
  private final AtomicLong windowStart = new AtomicLong();
  private final AtomicLong inWindow = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();

  /**
   * A log that writes to {@code logger}.
   *
   * @param logger where the lines go
   * @param perSecond the most lines logged in any one second
   */
  public RateLimitedLog(Logger logger, int perSecond) {
    this.logger = logger;
    this.perSecond = perSecond;
  }

  /**
   * Warns with an SLF4J format string; never logs a stack trace.
   *
   * @param format an SLF4J format string, with {@code {}} placeholders
   * @param args the values for the placeholders
   */
  public void warn(String format, Object... args) {
    long now = System.nanoTime();
    long start = windowStart.get();
    if (now - start > 1_000_000_000L && windowStart.compareAndSet(start, now)) {
      inWindow.set(0);
    }
    if (inWindow.incrementAndGet() > perSecond) {
      suppressed.incrementAndGet();
      return;
    }
    long skipped = suppressed.getAndSet(0);
    if (skipped > 0) {
      logger.warn("({} similar lines suppressed)", skipped);
    }
    logger.warn(format, args);
  }
}
