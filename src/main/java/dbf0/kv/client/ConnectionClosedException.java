package dbf0.kv.client;

import java.io.IOException;

/**
 * The connection is gone (closed by this client, by the server, or broken): the request may or
 * may not have been applied. Every request still waiting for its reply fails with this.
 */
public class ConnectionClosedException extends IOException {

  public ConnectionClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
