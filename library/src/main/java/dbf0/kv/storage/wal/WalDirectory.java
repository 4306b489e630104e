package dbf0.kv.storage.wal;

import java.io.Closeable;
import java.io.IOException;

/**
 * The directory the log lives in: the operations on names that a rewrite needs to switch files
 * atomically, and the directory's own fsync, without which a new name may vanish in a power cut.
 */
public interface WalDirectory extends Closeable {

    /** Opens {@code name} for reading and writing, creating it empty if missing. */
    WalFile open(String name) throws IOException;

    boolean exists(String name) throws IOException;

    /** Removes {@code name} if it exists. */
    void delete(String name) throws IOException;

    /**
     * Renames {@code from} over {@code to} in one step: a reader sees the old file or the new,
     * never neither.
     */
    void rename(String from, String to) throws IOException;

    /** Forces the directory's entries (creations, renames) to stable storage. */
    void sync() throws IOException;

    /** The names of the files in the directory, in no particular order. */
    java.util.List<String> list() throws IOException;

    /** A name for messages, such as the file's full path. */
    String describe(String name);
}
