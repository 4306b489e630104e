package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

/**
 * vectors/lsm-table.json (written by scripts/lsm_vectors.py, an encoder that shares no code with
 * this one): the Java writer makes exactly those table bytes from the same cells and reads them
 * back, and a manifest edit encodes and decodes to the same frame.
 */
class LsmFormatVectorsTest {

    static JsonObject load() throws Exception {
        try (InputStream in =
                LsmFormatVectorsTest.class.getResourceAsStream("/vectors/lsm-table.json")) {
            return JsonParser.parseReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .getAsJsonObject();
        }
    }

    static ByteArrayWrapper hex(String s) throws Exception {
        return new ByteArrayWrapper(Hex.decodeHex(s));
    }

    @Test
    void aTinyTableIsWrittenByteForByteAndReadBack() throws Exception {
        JsonObject vectors = load();
        JsonArray cells = vectors.getAsJsonArray("cells");
        SimulatedDirectory disk = new SimulatedDirectory();
        WalDirectory dir = disk.mount();
        WalFile file = dir.open("000005.sst");
        TableWriter writer = new TableWriter(file, 5);
        for (var e : cells) {
            JsonObject c = e.getAsJsonObject();
            long seq = c.get("seq").getAsLong();
            writer.add(
                    hex(c.get("key").getAsString()),
                    c.get("kind").getAsString().equals("put")
                            ? Cell.put(seq, hex(c.get("value").getAsString()))
                            : Cell.tombstone(seq));
        }
        TableMeta meta = writer.finish();
        String expected = vectors.getAsJsonObject("table").get("bytes").getAsString();
        assertThat(Hex.encodeHexString(disk.bytes("000005.sst"))).isEqualTo(expected);
        assertThat(meta.bytes()).isEqualTo(expected.length() / 2);

        Table table = Table.open(file, 5, "000005.sst");
        assertThat(table.meta().entries()).isEqualTo(3);
        assertThat(table.meta().maxSeq()).isEqualTo(7);
        assertThat(table.meta().smallest()).isEqualTo(hex("6170706c65"));
        BlockCache cache = new BlockCache(1 << 20);
        KvIterator it = new TableIterator(table, cache, true, null);
        for (var e : cells) {
            JsonObject c = e.getAsJsonObject();
            assertThat(it.key()).isEqualTo(hex(c.get("key").getAsString()));
            assertThat(it.cell().seq()).isEqualTo(c.get("seq").getAsLong());
            assertThat(it.cell().isTombstone())
                    .isEqualTo(c.get("kind").getAsString().equals("delete"));
            it.next();
        }
        assertThat(it.valid()).isFalse();
        for (var e : cells) {
            assertThat(table.mightContain(hex(e.getAsJsonObject().get("key").getAsString())))
                    .isTrue();
        }
    }

    @Test
    void aManifestEditIsFramedByteForByte() throws Exception {
        JsonObject m = load().getAsJsonObject("manifest_edit");
        JsonObject a = m.getAsJsonObject("added");
        ManifestEdit edit =
                new ManifestEdit(
                        List.of(
                                new ManifestEdit.Added(
                                        a.get("level").getAsInt(),
                                        new TableMeta(
                                                a.get("number").getAsLong(),
                                                a.get("bytes").getAsLong(),
                                                hex(a.get("smallest").getAsString()),
                                                hex(a.get("largest").getAsString()),
                                                0,
                                                0,
                                                0))),
                        List.of(new ManifestEdit.Removed(1, 2)),
                        m.get("log_number").getAsLong(),
                        m.get("next_file").getAsLong(),
                        m.get("last_seq").getAsLong(),
                        -1);
        byte[] frame = Hex.decodeHex(m.get("frame").getAsString());
        assertThat(Hex.encodeHexString(Manifest.frame(edit)))
                .isEqualTo(m.get("frame").getAsString());
        ManifestEdit back = ManifestEdit.decode(ByteBuffer.wrap(frame, 8, frame.length - 8));
        assertThat(back.encode()).isEqualTo(edit.encode());
        assertThat(back.removed()).isEqualTo(edit.removed());
        assertThat(back.logNumber()).isEqualTo(6);
    }
}
