package dbf0.common;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.util.concurrent.RateLimiter;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs one line per event, but about {@code perSecond} lines a second at most: a client hammering
 * the server with garbage must not turn the log into a flood. Suppressed lines are counted and the
 * count is reported with the next line that gets through.
 *
 * <p>Guava's {@link RateLimiter} does the counting. It saves up at most one second's worth of lines
 * while the log is quiet, so a burst after a quiet second logs about {@code perSecond} lines at
 * once, and a steady flood logs one line every {@code 1/perSecond} seconds.
 */
public final class RateLimitedLog {

    private final Logger logger;
    private final RateLimiter limiter;
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * A log that writes to {@code logger}.
     *
     * @param logger where the lines go
     * @param perSecond the most lines logged in a second, on average; at least 1
     */
    public RateLimitedLog(Logger logger, int perSecond) {
        checkArgument(perSecond >= 1, "perSecond must be at least 1, got %s", perSecond);
        this.logger = logger;
        this.limiter = RateLimiter.create(perSecond);
    }

    /**
     * Warns with an SLF4J format string; never logs a stack trace.
     *
     * @param format an SLF4J format string, with {@code {}} placeholders
     * @param args the values for the placeholders
     */
    public void warn(String format, Object... args) {
        if (!limiter.tryAcquire()) {
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
