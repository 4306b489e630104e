package dbf0.common;

import java.util.Locale;

/** Parses the sizes in bytes that the command lines accept: {@code 512k}, {@code 64m}, ... */
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

    private static IllegalArgumentException notASize(String text) {
        return new IllegalArgumentException(
                "'"
                        + text
                        + "' is not a size: use bytes (65536) or a whole number with k, m or g"
                        + " (512k, 64m, 1g)");
    }
}
