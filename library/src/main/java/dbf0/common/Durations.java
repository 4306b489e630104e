package dbf0.common;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** Parses the durations that the command lines accept. */
public final class Durations {

    private Durations() {}

    /**
     * Accepts ISO-8601 ({@code PT10S}, {@code PT1M30S}), a plain number of seconds ({@code 30},
     * {@code 2.5}) or a number with a unit ({@code 500ms}, {@code 30s}, {@code 2m}).
     *
     * @param text the duration as typed, surrounding spaces and case ignored
     * @return the duration
     * @throws IllegalArgumentException naming the accepted forms, when the text is none of them
     */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt") || t.startsWith("p")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                double millis = Double.parseDouble(t.substring(0, t.length() - 2));
                return Duration.ofNanos(Math.round(millis * 1e6));
            }
            if (t.endsWith("s")) {
                return ofSeconds(Double.parseDouble(t.substring(0, t.length() - 1)));
            }
            if (t.endsWith("m")) {
                return ofSeconds(Double.parseDouble(t.substring(0, t.length() - 1)) * 60);
            }
            return ofSeconds(Double.parseDouble(t));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'"
                            + text
                            + "' is not a duration: use ISO-8601 (PT10S), seconds (30), or 500ms /"
                            + " 30s / 2m");
        }
    }

    private static Duration ofSeconds(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    /**
     * Like {@link #parse} but also rejects zero and negative durations.
     *
     * @param text the duration as typed
     * @return the duration, positive
     * @throws IllegalArgumentException if the text is not a duration, or is zero or negative
     */
    public static Duration parsePositive(String text) {
        Duration d = parse(text);
        checkArgument(d.isPositive(), "duration must be positive, got '%s'", text);
        return d;
    }

    /**
     * Seconds with a fraction, for reports.
     *
     * @param d a duration
     * @return its length in seconds
     */
    public static double toSeconds(Duration d) {
        return d.toNanos() / 1e9;
    }
}
