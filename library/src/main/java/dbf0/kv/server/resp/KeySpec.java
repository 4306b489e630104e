package dbf0.kv.server.resp;

/**
 * Where a command's keys are among its arguments, in the terms of Redis's {@code COMMAND} reply,
 * and whether it writes. A cluster node reads it twice: to check that a command's keys share one
 * slot (and are owned here), and to list the command in its {@code COMMAND} table, which cluster
 * clients such as redis-py consult before they send anything.
 *
 * @param first the position of the first key (the command's name is 0)
 * @param last the position of the last key; -1 for the last argument
 * @param step the distance between keys (MSET's is 2: key, value, key, ...)
 * @param writes true for a command that writes ({@code write} in the table), false for {@code
 *     readonly}
 */
public record KeySpec(int first, int last, int step, boolean writes) {

    /** One key, in position 1, read. */
    public static final KeySpec READS_ONE = new KeySpec(1, 1, 1, false);

    /** One key, in position 1, written. */
    public static final KeySpec WRITES_ONE = new KeySpec(1, 1, 1, true);

    /** Every argument after the name is a key, read. */
    public static final KeySpec READS_ALL = new KeySpec(1, -1, 1, false);

    /** Every argument after the name is a key, written. */
    public static final KeySpec WRITES_ALL = new KeySpec(1, -1, 1, true);

    /**
     * @param argCount how many arguments the command came with, its name included
     * @return the position of its last key
     */
    public int lastIn(int argCount) {
        return last < 0 ? argCount + last : last;
    }
}
