package dbf0.kv.server;

import dbf0.base.BaseServer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.PrefixIo;
import dbf0.kv.protocol.ProtocolException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;

/**
 * A key/value server over any {@link Map}: it speaks the seed protocol ({@link PrefixIo}), one
 * operation per connection, and applies each operation to the map it was given.
 *
 * <p>The server adds no locking of its own: thread safety is entirely the map's. That is the
 * point of the seed's experiment: with a {@link java.util.HashMap} and several worker threads,
 * keys go missing (see {@link dbf0.kv.race.CreateHashMapRaceCondition}).
 *
 * <pre>{@code
 * try (var server = new KeyValueServer(new InetSocketAddress("127.0.0.1", 0), 4,
 *     MapBackends.create("concurrent"))) {
 *   server.start();
 *   ... connect to server.getLocalAddress() ...
 * }
 * }</pre>
 */
public class KeyValueServer extends BaseServer {

  private final Map<ByteArrayWrapper, ByteArrayWrapper> map;

  public KeyValueServer(InetSocketAddress bindAddress, int nThreads, Map<ByteArrayWrapper, ByteArrayWrapper> map) {
    super("kv-server", bindAddress, nThreads);
    this.map = map;
  }

  @Override
  protected void processConnection(Socket socket) throws IOException {
    // Requests are a few bytes: a small buffer turns ~3 reads into one system call.
    InputStream in = new BufferedInputStream(socket.getInputStream(), 512);
    int op = in.read();
    switch (op) {
      case PrefixIo.SET -> {
        ByteArrayWrapper key = PrefixIo.readBytes(in);
        ByteArrayWrapper value = PrefixIo.readBytes(in);
        map.put(key, value);
      }
      case PrefixIo.GET -> {
        ByteArrayWrapper key = PrefixIo.readBytes(in);
        socket.getOutputStream().write(PrefixIo.encodeGetResponse(map.get(key)));
      }
      case -1 -> throw new EOFException("connected but sent no operation");
      default -> throw new ProtocolException(String.format("unknown operation byte 0x%02x", op));
    }
  }

  /** The number of entries in the map (racy for a HashMap, like everything else about it). */
  public int size() {
    return map.size();
  }

  /** The backing map, for tests and in-process reports. */
  public Map<ByteArrayWrapper, ByteArrayWrapper> getMap() {
    return map;
  }
}
