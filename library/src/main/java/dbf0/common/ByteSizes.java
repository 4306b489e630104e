package dbf0.common;

import java.util.Locale;

/**
 * Sizes in bytes as people write them: parses what the command lines accept ({@code 512k}, {@code
 * 64m}, ...) and formats a size for a message ({@code 32 MiB}).
 */
public final class ByteSizes {

    private ByteSizes() {}

    /**
     * Accepts a plain number of bytes ({@code 65536}) or a whole number with a binary unit: {@code
     * k} (KiB), {@code m} (MiB), {@code g} (GiB), with or without a trailing {@code b} or {@code
     * ib} ({@code 64m}, {@code 64mb}, {@code 64MiB} are all 64 × 2^20).
     *
     * @param text the size as typed, surrounding spaces and case ignored
     * @return the size in bytes, at least 0
     * @throws IllegalArgumentException naming the accepted forms, for anything else or a size past
     *     {@link Long#MAX_VALUE}
     */
    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                default -> shift = 0;
            }
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            throw notASize(text);
        }
        try {
            long n = Long.parseLong(digits);
            if (n > (Long.MAX_VALUE >> shift)) {
                throw notASize(text);
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw notASize(text);
        }
    }

    /**
     * A size for a person to read: bytes below 1 KiB ({@code 512 B}), else in the largest binary
     * unit that leaves a whole part, with one decimal when it is not whole ({@code 32 MiB}, {@code
     * 1.5 KiB}, {@code 2.3 GiB}).
     *
     * @param bytes the size, at least 0
     * @return the size with its unit
     * @throws IllegalArgumentException for a negative size
     */
    public static String format(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size is not negative, got " + bytes);
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int unit = 0;
        while (unit + 1 < units.length && bytes >= 1L << (10 * (unit + 1))) {
            unit++;
        }
        if (unit == 0) {
            return bytes + " B";
        }
        double value = bytes / (double) (1L << (10 * unit));
        if (Math.round(value * 10) >= 10240 && unit + 1 < units.length) {
            value /= 1024; // 1023.97 KiB would round to "1024 KiB": say 1 MiB
            unit++;
        }
        String number = String.format(Locale.ROOT, "%.1f", value);
        if (number.endsWith(".0")) {
            number = number.substring(0, number.length() - 2);
        }
        return number + " " + units[unit];
    }

    private static IllegalArgumentException notASize(String text) {
        return new IllegalArgumentException(
                "'"
                        + text
                        + "' is not a size: use bytes (65536) or a whole number with k, m or g"
                        + " (512k, 64m, 1g)");
    }
}
