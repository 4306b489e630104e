package dbf0.kv.storage.wal;

import java.io.IOException;

/** The log has a bad record with good records after it: damage, not a crash, so start-up stops. */
public final class CorruptWalException extends IOException {

    private static final long serialVersionUID = 1L;

    private final long offset;

    public CorruptWalException(String message, long offset) {
        super(message);
        this.offset = offset;
    }

    /** The byte offset of the first bad record. */
    public long offset() {
        return offset;
    }
}
