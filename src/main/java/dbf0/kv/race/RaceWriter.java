package dbf0.kv.race;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.V1Client;
import dbf0.kv.workload.RandomKeyValueSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;

/**
 * The race demo's writer: floods the server with SETs of random 16-byte keys, so the map keeps
 * growing through resize points while the checker reads.
 *
 * <p>The seed's writer closed each connection first, which leaves a TIME_WAIT socket on the
 * client for every SET and caps a loopback client near 14k connections per second (the
 * ephemeral ports run out). Waiting for the server to close first moves the TIME_WAIT to the
 * server's side: the map grows faster and the first resize-sized hole shows up sooner.
 */
final class RaceWriter extends BaseConnector {

  static final int KEY_LENGTH = 16;
  static final int VALUE_LENGTH = 8;

  private final RandomKeyValueSource source;
  private final LongAdder sets;

  RaceWriter(InetSocketAddress server, String name, LongAdder sets, Random random) {
    super(server, name);
    this.source = new RandomKeyValueSource(KEY_LENGTH, VALUE_LENGTH, random);
    this.sets = sets;
  }

  @Override
  protected void processConnection(Socket socket) throws IOException {
    ByteArrayWrapper key = source.nextKey();
    V1Client.setAndAwaitClose(socket, key, source.valueFor(key));
    sets.increment();
  }
}
