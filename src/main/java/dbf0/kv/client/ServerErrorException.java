package dbf0.kv.client;

import java.io.IOException;

/**
 * The server answered a request with an ERROR reply (for example a key over the server's limit).
 * The connection is still usable.
 */
public class ServerErrorException extends IOException {

    /**
     * An exception carrying the server's message.
     *
     * @param message the ERROR reply's message
     */
    public ServerErrorException(String message) {
        super("server error: " + message);
    }
}
