package dbf0.kv.storage.wal;

import java.io.IOException;

/**
 * Lets an owner start a new log file between two appends: the LSM store gives each memtable a log
 * of its own, so that a log can be deleted once its memtable is in a table. {@link #next} is asked
 * under the log's lock before every write call; the records of that call and all later ones go to
 * the file it returns. The old file is forced and closed by the log; deleting it is the owner's
 * business.
 */
public interface LogRotation {

    /**
     * A new file to append to from now on, and its name.
     *
     * @param name the file's name in the directory
     * @param file the file, open, empty, and its name already made durable (directory synced)
     */
    record Next(String name, WalFile file) {}

    /**
     * Called under the log's lock before each write call.
     *
     * @param bytes the current file's size
     * @return a new file to switch to, or null to keep appending to the current one
     * @throws IOException if the new file cannot be made; the write call then fails
     */
    Next next(long bytes) throws IOException;
}
