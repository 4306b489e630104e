package dbf0.kv.client;

import java.io.IOException;

/**
 * The connection is gone (closed by this client, by the server, or broken): the request may or may
 * not have been applied. Every request still waiting for its reply fails with this.
 */
public class ConnectionClosedException extends IOException {

    /**
     * An exception saying why the connection is gone.
     *
     * @param message what happened
     * @param cause the failure that closed the connection, or null when the client closed it
     */
    public ConnectionClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
