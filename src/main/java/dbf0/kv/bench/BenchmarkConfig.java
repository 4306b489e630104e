package dbf0.kv.bench;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One benchmark run: the seed's seven arguments plus where the server is.
 *
 * @param connectTo null to start a server in this JVM; otherwise the address of a server that
 *     is already running (started with {@code dbf0 server}), and only the clients run here
 */
public record BenchmarkConfig(
    int serverThreads,
    int clientThreads,
    String mapType,
    int keyLength,
    int valueLength,
    double setFraction,
    Duration duration,
    String bindHost,
    int port,
    InetSocketAddress connectTo,
    Long seed) {

  /** A run with the server in this JVM on 127.0.0.1 and any free port. */
  public static BenchmarkConfig local(int serverThreads, int clientThreads, String mapType, int keyLength,
      int valueLength, double setFraction, Duration duration) {
    return new BenchmarkConfig(serverThreads, clientThreads, mapType, keyLength, valueLength, setFraction,
        duration, "127.0.0.1", 0, null, null);
  }
}
