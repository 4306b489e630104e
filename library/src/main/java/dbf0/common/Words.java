package dbf0.common;

import java.util.Locale;

/**
 * Counts in the words that programs print: "1 entry", "2 entries", "1,000 connections". Every
 * message with a count goes through here, so that none says "1 tables".
 */
public final class Words {

    private Words() {}

    /**
     * {@code n} with its noun, which takes an s for any number but one.
     *
     * @param n the count, printed with thousands separators
     * @param one the noun for one ("table")
     * @return "1 table", "0 tables", "12,345 tables"
     */
    public static String count(long n, String one) {
        return count(n, one, one + "s");
    }

    /**
     * {@code n} with the noun for its number.
     *
     * @param n the count, printed with thousands separators
     * @param one the words for one ("entry", "GET came")
     * @param many the words for any other number ("entries", "GETs came")
     * @return "1 entry", "2 entries"
     */
    public static String count(long n, String one, String many) {
        return String.format(Locale.ROOT, "%,d %s", n, noun(n, one, many));
    }

    /**
     * The noun alone, for a table that prints the count in a column of its own.
     *
     * @param n the count
     * @param one the noun for one
     * @return {@code one} when {@code n} is 1, else {@code one} with an s
     */
    public static String noun(long n, String one) {
        return noun(n, one, one + "s");
    }

    /**
     * The noun alone, for a table that prints the count in a column of its own.
     *
     * @param n the count
     * @param one the noun for one
     * @param many the noun for any other number
     * @return {@code one} when {@code n} is 1, else {@code many}
     */
    public static String noun(long n, String one, String many) {
        return n == 1 ? one : many;
    }
}
