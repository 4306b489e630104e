package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A snapshot's bytes, a round trip, and damaged files refused by name. */
class MapSnapshotTest {

    @TempDir Path dir;

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    static Map<ByteArrayWrapper, ByteArrayWrapper> contents(Store store) {
        Map<ByteArrayWrapper, ByteArrayWrapper> all = new HashMap<>();
        store.forEach(all::put);
        return all;
    }

    @Test
    void oneKeyIsMagicVersionPairEndCountAndCrc() throws IOException {
        Store one = new MapStore(MapBackends.create("concurrent"));
        one.put(b("k"), b("v"));
        Path file = dir.resolve("snap");
        assertThat(MapSnapshot.write(one, file)).isEqualTo(1);
        String hex = HexFormat.of().formatHex(Files.readAllBytes(file));
        assertThat(hex)
                .startsWith(
                        "4442463053 4e4150".replace(" ", "") // DBF0SNAP
                                + "01" // version
                                + "00000001"
                                + "6b"
                                + "00000001"
                                + "76" // k -> v
                                + "ffffffff" // end
                                + "0000000000000001"); // pairs
        assertThat(hex).hasSize(2 * (8 + 1 + 10 + 4 + 8 + 4));
    }

    @Test
    void whatIsWrittenIsReadBackIntoAStoreThatHeldOtherKeys() throws IOException {
        Store source = new MapStore(MapBackends.create("concurrent"));
        for (int i = 0; i < 1000; i++) {
            source.put(b("key" + i), b("value" + i));
        }
        source.put(b("empty"), b(""));
        Path file = dir.resolve("snap");
        MapSnapshot.write(source, file);
        Store target = new MapStore(MapBackends.create("concurrent"));
        target.put(b("stale"), b("gone after the load"));
        assertThat(MapSnapshot.read(file, target)).isEqualTo(1001);
        assertThat(contents(target)).isEqualTo(contents(source));
    }

    @Test
    void aDamagedSnapshotIsRefusedNamingItsFile() throws IOException {
        Store source = new MapStore(MapBackends.create("concurrent"));
        source.put(b("k"), b("v"));
        Path file = dir.resolve("snap");
        MapSnapshot.write(source, file);
        byte[] bytes = Files.readAllBytes(file);
        Store target = new MapStore(MapBackends.create("concurrent"));

        byte[] flipped = bytes.clone();
        flipped[13] ^= 1; // the key itself
        Files.write(file, flipped);
        assertThatThrownBy(() -> MapSnapshot.read(file, target))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("CRC32C");

        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 6));
        assertThatThrownBy(() -> MapSnapshot.read(file, target)).hasMessageContaining("cut short");

        byte[] huge = bytes.clone();
        huge[9] = 0x7f; // a key length of two gigabytes
        Files.write(file, huge);
        assertThatThrownBy(() -> MapSnapshot.read(file, target)).hasMessageContaining("past");

        Files.write(file, "not a snapshot at all".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> MapSnapshot.read(file, target))
                .hasMessageContaining("not a version 1 dbf0 snapshot");
    }
}
