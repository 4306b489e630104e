package dbf0.kv.storage.btree;

import dbf0.kv.storage.StorageFailureException;

/**
 * A page whose bytes are not what was written: a checksum mismatch, a page that says it is another
 * page, an impossible layout. The message names the file and the page, so that an operator can look
 * (page {@code n} starts at byte {@code n * pageSize}).
 */
public final class CorruptPageException extends StorageFailureException {

    private static final long serialVersionUID = 1L;

    /**
     * A corruption found where the message says.
     *
     * @param message the file, the page and what was wrong
     */
    public CorruptPageException(String message) {
        super(message);
    }
}
