package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

/**
 * vectors/lsm-table.json (written by scripts/lsm_vectors.py, an encoder that shares no code with
 * this one): the Java writer makes exactly those table bytes (version 2) from the same cells and
 * reads them back, a version-1 table of the same cells is still read, and a manifest edit encodes
 * and decodes to the same frame.
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
        Map<ByteArrayWrapper, KeyEstimate.Below> older = new HashMap<>();
        for (var e : vectors.getAsJsonObject("older").entrySet()) {
            older.put(
                    hex(e.getKey()),
                    e.getValue().getAsString().equals("put")
                            ? KeyEstimate.Below.PUT
                            : KeyEstimate.Below.TOMBSTONE);
        }
        TableWriter writer =
                new TableWriter(
                        file, 5, (key, hash) -> older.getOrDefault(key, KeyEstimate.Below.NOTHING));
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

        JsonObject t = vectors.getAsJsonObject("table");
        assertThat(meta.newKeys()).isEqualTo(t.get("new_keys").getAsLong()).isEqualTo(2);
        assertThat(meta.removedKeys()).isEqualTo(t.get("removed_keys").getAsLong()).isEqualTo(1);
        Table table = Table.open(file, 5, "000005.sst");
        assertThat(table.meta()).isEqualTo(meta);
        readsBack(table, cells);
        for (var e : cells) {
            JsonObject c = e.getAsJsonObject();
            long hash = Bloom.hash(hex(c.get("key").getAsString()));
            if (c.get("kind").getAsString().equals("delete")) {
                assertThat(table.mayBeTombstone(hash)).as("its tombstones' filter").isTrue();
            }
        }
    }

    /** The table's every cell, in order, and its filter holding every key. */
    private static void readsBack(Table table, JsonArray cells) throws Exception {
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
    void aVersionOneTableIsStillReadItsKeyCountsUnknown() throws Exception {
        JsonObject vectors = load();
        byte[] bytes =
                Hex.decodeHex(vectors.getAsJsonObject("table_v1").get("bytes").getAsString());
        Table table = Table.open(file(bytes), 5, "000005.sst");
        readsBack(table, vectors.getAsJsonArray("cells"));
        assertThat(table.meta().bytes()).isEqualTo(bytes.length);
        // No counts in its footer: every entry counts as a new key until compaction rewrites it,
        // and no filter of its tombstones: a key it may hold counts as a put.
        assertThat(table.meta().newKeys()).isEqualTo(3);
        assertThat(table.meta().removedKeys()).isZero();
        assertThat(table.mayBeTombstone(Bloom.hash(hex("6b697769")))).isFalse();
    }

    @Test
    void keyCountsBeyondTheEntriesAreCorruption() throws Exception {
        byte[] bytes = Hex.decodeHex(load().getAsJsonObject("table").get("bytes").getAsString());
        int footer = bytes.length - TableFormat.FOOTER_BYTES;
        ByteBuffer.wrap(bytes).putLong(footer + 44, 3); // 3 new keys and 1 removed, of 3 entries
        CRC32C crc = new CRC32C();
        crc.update(bytes, footer, TableFormat.FOOTER_BYTES - 4);
        ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> Table.open(file(bytes), 5, "000005.sst"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("key counts beyond its entries");
    }

    private static WalFile file(byte[] bytes) throws Exception {
        WalFile file = new SimulatedDirectory().mount().open("000005.sst");
        file.write(ByteBuffer.wrap(bytes), 0);
        return file;
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
