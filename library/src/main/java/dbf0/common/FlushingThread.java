package dbf0.common;

import java.util.ArrayList;

/**
 * A thread that works in turns (an event loop) and, before it waits for its next turn, runs the
 * flushes that its turn's work asked for: Redis's {@code beforeSleep}. Work that would flush a
 * store's held-back writes on this thread says so with {@link #owe} instead, and returns to wait;
 * the turn's end runs every flush owed once, so that the writes of all the connections served in a
 * turn go to the log with one write call (and, under {@code always}, one fsync).
 *
 * <p>Why a thread type rather than a flag passed down: the store and the reply queue sit below the
 * server and must not know its model, but they may ask whether their caller is such a thread, and
 * the type check costs nothing on the hot path. Only its own thread touches a {@code
 * FlushingThread}'s list.
 */
public final class FlushingThread extends Thread {

    private final ArrayList<Runnable> owed = new ArrayList<>();

    /**
     * A daemon thread.
     *
     * @param body what the thread runs: a loop that calls {@link #flushOwed} at the end of each
     *     turn
     * @param name the thread's name
     */
    public FlushingThread(Runnable body, String name) {
        super(body, name);
        setDaemon(true);
    }

    /**
     * The current thread if it flushes at the end of its turns.
     *
     * @return the current thread, or null if it is not a flushing thread
     */
    public static FlushingThread current() {
        return Thread.currentThread() instanceof FlushingThread t ? t : null;
    }

    /**
     * Asks for {@code flush} to run at the end of this turn. A flush owed twice in a row runs once;
     * several flushes of one store cost one write, the first: the others find nothing left.
     *
     * @param flush what makes the held-back writes go ahead (a store's flush)
     */
    public void owe(Runnable flush) {
        if (owed.isEmpty() || owed.get(owed.size() - 1) != flush) {
            owed.add(flush);
        }
    }

    /**
     * Runs {@code flush} now, or on a flushing thread owes it to the end of the turn: what a
     * session calls before it waits for the writes it submitted.
     *
     * @param flush what makes the held-back writes go ahead (a store's flush)
     */
    public static void flushOrOwe(Runnable flush) {
        FlushingThread loop = current();
        if (loop != null) {
            loop.owe(flush);
        } else {
            flush.run();
        }
    }

    /**
     * Whether the turn still owes a flush.
     *
     * @return true if a flush is owed
     */
    public boolean owesFlushes() {
        return !owed.isEmpty();
    }

    /** Runs the owed flushes in the order they were owed, and forgets them. */
    public void flushOwed() {
        try {
            for (int i = 0; i < owed.size(); i++) {
                owed.get(i).run();
            }
        } finally {
            owed.clear();
        }
    }
}
