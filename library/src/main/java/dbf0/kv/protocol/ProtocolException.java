package dbf0.kv.protocol;

import java.io.IOException;

/** The peer sent bytes that do not form a valid frame; the connection cannot be trusted further. */
public class ProtocolException extends IOException {

    public ProtocolException(String message) {
        super(message);
    }
}
