package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.WalOptions;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@link KeyValueServer#start()} does first: it binds the port before it touches the disk, so
 * a taken port leaves no new data directory behind, and a store on a missing parent fails by name.
 */
@Timeout(60)
class StartOrderTest {

    @TempDir Path tmp;

    /** A server over the log in {@code dir}, or with {@code lsm} the disk store there. */
    private static KeyValueServer server(
            ServerModel model, boolean lsm, Path dir, InetSocketAddress address) {
        ServerOptions options = ServerOptions.defaults().withModel(model).withBindAddress(address);
        return lsm
                ? new KeyValueServer(options.withLsm(LsmOptions.defaults(dir)))
                : new KeyValueServer(
                        options.withDurability(WalOptions.defaults(dir)),
                        new ConcurrentHashMap<>());
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void aTakenPortFailsBeforeTheDataDirectoryIsCreated(ServerModel model) throws Exception {
        try (ServerSocket taken =
                new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
            for (boolean lsm : new boolean[] {false, true}) {
                Path dir = tmp.resolve(lsm ? "lsm" : "wal");
                KeyValueServer server = server(model, lsm, dir, address);
                assertThatThrownBy(server::start)
                        .isInstanceOf(BindException.class)
                        .hasMessageStartingWith(
                                "cannot listen on 127.0.0.1:" + taken.getLocalPort());
                assertThat(dir).as("nothing made on disk").doesNotExist();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void aMissingParentFailsByNameAndTheServerCanBeMadeAgain(ServerModel model) throws Exception {
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        for (boolean lsm : new boolean[] {false, true}) {
            Path dir = tmp.resolve("nope").resolve("deeper").resolve(lsm ? "lsm" : "wal");
            KeyValueServer server = server(model, lsm, dir, any);
            assertThatThrownBy(server::start)
                    .isInstanceOf(NoSuchFileException.class)
                    .hasMessage(dir + ": its parent " + dir.getParent() + " does not exist");
            assertThat(tmp.resolve("nope")).doesNotExist();
            assertThatThrownBy(server::getLocalAddress)
                    .as("not started, and its port given back")
                    .isInstanceOf(IllegalStateException.class);
        }
        // A directory whose parent is there is made, and the server serves from it.
        Path dir = tmp.resolve("wal");
        try (KeyValueServer server = server(model, false, dir, any)) {
            server.start();
            try (KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
                client.set(ByteArrayWrapper.of(1), ByteArrayWrapper.of(2));
                assertThat(client.get(ByteArrayWrapper.of(1))).isEqualTo(ByteArrayWrapper.of(2));
            }
        }
        assertThat(dir).isDirectory();
    }
}
