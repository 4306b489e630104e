package dbf0.kv.client;

import dbf0.kv.protocol.Response;
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

    /**
     * The exception for a refusal: an ERROR reply, or a {@link MovedException} for a MOVED one.
     *
     * @param reply an ERROR or MOVED reply
     * @return the exception to fail the request with
     */
    static ServerErrorException of(Response reply) {
        return reply instanceof Response.Moved moved
                ? new MovedException(moved.slot(), moved.address())
                : new ServerErrorException(((Response.Error) reply).message());
    }
}
