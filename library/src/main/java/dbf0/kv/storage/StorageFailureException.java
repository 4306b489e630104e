package dbf0.kv.storage;

/**
 * A write the store could not make durable: the disk refused it (full, an I/O error) or the store
 * stopped taking writes after such a failure. The write was not acknowledged and must be answered
 * with an error; it may or may not be found after a restart (a failed fsync leaves the bytes' fate
 * unknown), but no write acknowledged earlier is lost because of it. Reads go on.
 */
public class StorageFailureException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * A failure caused by an I/O error.
     *
     * @param message what failed, for the error reply and the log
     * @param cause the I/O error behind it
     */
    public StorageFailureException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * A refusal with no I/O error behind it (the store stopped taking writes).
     *
     * @param message what failed, for the error reply and the log
     */
    public StorageFailureException(String message) {
        super(message);
    }
}
