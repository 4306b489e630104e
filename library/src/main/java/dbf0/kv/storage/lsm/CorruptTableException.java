package dbf0.kv.storage.lsm;

import dbf0.kv.storage.StorageFailureException;

/**
 * A table or manifest whose bytes are not what was written: a checksum mismatch or an impossible
 * layout. The message names the file and the byte offset, so that an operator can look.
 */
public final class CorruptTableException extends StorageFailureException {

    private static final long serialVersionUID = 1L;

    /**
     * A corruption found at a place the message names.
     *
     * @param message the file, the offset and what was wrong
     */
    public CorruptTableException(String message) {
        super(message);
    }
}
