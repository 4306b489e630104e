package dbf0;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.client.V1Client;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** The library example of README.md, kept compiling and working. */
class ReadmeExampleTest {

  @Test
  void readmeLibraryExample() throws Exception {
    ByteArrayWrapper got;
    try (var server = new KeyValueServer(new InetSocketAddress("127.0.0.1", 0), 4, MapBackends.create("concurrent"))) {
      server.start();
      var key = ByteArrayWrapper.of('h', 'i');
      try (var socket = new Socket()) {
        socket.connect(server.getLocalAddress());
        V1Client.setAndAwaitClose(socket, key, ByteArrayWrapper.of(42));
      }
      try (var socket = new Socket()) {
        socket.connect(server.getLocalAddress());
        got = V1Client.get(socket, key);
      }
    }
    assertThat(got).hasToString("2a");
  }

  @Test
  void readmeV2ClientExample() throws Exception {
    var options = ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(2);
    try (var server = new KeyValueServer(options, MapBackends.create("concurrent"))) {
      server.start();
      try (var client = KeyValueClient.connect(server.getLocalAddress())) {
        var key = ByteArrayWrapper.of('h', 'i');
        client.set(key, ByteArrayWrapper.of(42));
        assertThat(client.get(key)).hasToString("2a");
        var pending = client.getAsync(key);
        assertThat(pending.join() + " " + client.delete(key)).isEqualTo("2a true");
      }
    }
  }
}
