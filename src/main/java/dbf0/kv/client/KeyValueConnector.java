package dbf0.kv.client;

import dbf0.base.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.workload.KeyValueSource;
import dbf0.kv.workload.KeyValueTracker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;

/**
 * The seed's load generator: each connection performs one operation, a SET with probability
 * {@code setFraction}, otherwise a GET, on a key from the {@link KeyValueSource}. Counts go into
 * this connector's own {@link KeyValueClientStats}; read them after {@link #join()}.
 */
public class KeyValueConnector extends BaseConnector {

  private final double setFraction;
  private final KeyValueSource source;
  private final KeyValueTracker tracker;
  private final KeyValueClientStats stats = new KeyValueClientStats();
  private final Random random;

  public KeyValueConnector(InetSocketAddress serverAddress, String name, double setFraction,
      KeyValueSource source, KeyValueTracker tracker, Random random) {
    super(serverAddress, name);
    if (!(setFraction >= 0 && setFraction <= 1)) {
      throw new IllegalArgumentException("setFraction must be in [0, 1], got " + setFraction);
    }
    this.setFraction = setFraction;
    this.source = source;
    this.tracker = tracker;
    this.random = random;
  }

  @Override
  protected void processConnection(Socket socket) throws IOException {
    ByteArrayWrapper key = source.nextKey();
    if (random.nextDouble() < setFraction) {
      SeedProtocolClient.set(socket, key, source.valueFor(key));
      tracker.trackSet(key);
      stats.countSet();
    } else {
      ByteArrayWrapper value = SeedProtocolClient.get(socket, key);
      stats.countGet(value != null, value == null && tracker.contains(key));
    }
  }

  public KeyValueClientStats getStats() {
    return stats;
  }
}
