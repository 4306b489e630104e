package dbf0.kv.storage.lsm;

/**
 * How an {@link LsmStore} merges its sorted tables, the chapter's lesson in trade-offs.
 *
 * <ul>
 *   <li>{@link #LEVELED}: each level past 0 is one sorted run about ten times the size of the one
 *       above; a table moving down is merged with the tables it overlaps. Reads look in few places
 *       and space stays near the data's size, at the price of rewriting data many times.
 *   <li>{@link #TIERED}: a level collects several sorted runs of similar size and merges them all
 *       at once into one run on the next level. Each byte is rewritten fewer times, but a read may
 *       look in every run, and space holds old versions longer.
 * </ul>
 */
public enum CompactionStyle {
    LEVELED,
    TIERED
}
