package dbf0.kv.race;

/**
 * Where a {@link java.util.HashMap} with the default load factor resizes: when its size passes 0.75
 * × capacity, capacity being a power of two (16 at first). So 12, 24, 48, ..., 3072, 6144, ...,
 * 24576, ... A resize allocates a table twice as large, publishes it, then moves the old bins over
 * one by one: a key whose bin has not moved yet is invisible to other threads.
 */
public final class ResizePoints {

    private ResizePoints() {}

    /** The largest resize point at or below {@code size}, or 0 if the map has never resized. */
    public static long atOrBelow(long size) {
        long capacity = 16;
        long last = 0;
        while (capacity * 3 / 4 <= size) {
            last = capacity * 3 / 4;
            capacity *= 2;
        }
        return last;
    }

    /** The smallest resize point above {@code size}. */
    public static long above(long size) {
        long capacity = 16;
        while (capacity * 3 / 4 <= size) {
            capacity *= 2;
        }
        return capacity * 3 / 4;
    }

    /** The table capacity whose threshold is {@code point} (point = 0.75 × capacity). */
    public static long capacityOf(long point) {
        return point * 4 / 3;
    }

    /** How many resize points lie in (from, to]. */
    public static int countBetween(long from, long to) {
        int n = 0;
        for (long p = above(from); p <= to; p = above(p)) {
            n++;
        }
        return n;
    }
}
