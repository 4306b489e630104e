package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

/**
 * vectors/btree-pages.json (written by scripts/btree_vectors.py, an encoder that shares no code
 * with this one): the Java code makes exactly those bytes for a leaf (inline and overflow cells),
 * an inner page, an overflow chain, a free page, the meta page and a double-write file, and reads
 * each back.
 */
class BTreeFormatVectorsTest {

    static JsonObject load() throws Exception {
        try (InputStream in =
                BTreeFormatVectorsTest.class.getResourceAsStream("/vectors/btree-pages.json")) {
            return JsonParser.parseReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .getAsJsonObject();
        }
    }

    static byte[] hex(JsonObject o, String field) throws Exception {
        return Hex.decodeHex(o.get(field).getAsString());
    }

    static int num(JsonObject o, String field) {
        return o.get(field).getAsInt();
    }

    static byte[] sealed(byte[] page) {
        Page.seal(page);
        return page;
    }

    @Test
    void leafAndInnerPagesAreWrittenByteForByteAndReadBack() throws Exception {
        JsonObject v = load();
        int size = num(v, "page_size");
        JsonObject l = v.getAsJsonObject("leaf");
        List<byte[]> cells = new ArrayList<>();
        for (var e : l.getAsJsonArray("cells")) {
            JsonObject c = e.getAsJsonObject();
            cells.add(
                    c.has("overflow_first")
                            ? Cells.leafOutside(
                                    hex(c, "key"), num(c, "value_length"), num(c, "overflow_first"))
                            : Cells.leafInline(hex(c, "key"), hex(c, "value")));
        }
        byte[] leaf = new byte[size];
        Page.format(leaf, Page.LEAF, num(l, "number"), num(l, "lsn"));
        Page.link(leaf, num(l, "next"));
        SlottedPage.setCells(leaf, cells);
        assertThat(Hex.encodeHexString(sealed(leaf))).isEqualTo(l.get("bytes").getAsString());
        assertThat(Page.problem(leaf, 2)).isNull();
        assertThat(SlottedPage.search(leaf, "fig".getBytes())).isEqualTo(1);
        int at = SlottedPage.offset(leaf, 1);
        assertThat(Cells.outside(leaf, at)).isTrue();
        assertThat(Cells.firstOverflow(leaf, at)).isEqualTo(4);

        JsonObject in = v.getAsJsonObject("inner");
        JsonArray ic = in.getAsJsonArray("cells");
        byte[] inner = new byte[size];
        Page.format(inner, Page.INNER, num(in, "number"), num(in, "lsn"));
        Page.level(inner, num(in, "level"));
        Page.link(inner, num(in, "leftmost"));
        SlottedPage.setCells(
                inner,
                List.of(
                        Cells.inner(
                                hex(ic.get(0).getAsJsonObject(), "key"),
                                num(ic.get(0).getAsJsonObject(), "child"))));
        assertThat(Hex.encodeHexString(sealed(inner))).isEqualTo(in.get("bytes").getAsString());
        assertThat(BTree.childFor(inner, "apple".getBytes())).isEqualTo(2);
        assertThat(BTree.childFor(inner, "plum".getBytes())).isEqualTo(5);
        assertThat(BTree.childFor(inner, "zebra".getBytes())).isEqualTo(5);
    }

    @Test
    void anOverflowChainAFreePageAndTheMetaPage() throws Exception {
        JsonObject v = load();
        int size = num(v, "page_size");
        SimulatedDirectory disk = new SimulatedDirectory();
        PageFile file = new PageFile(disk.mount().open("t.db"), size, "t.db");
        Meta meta = new Meta();
        meta.pageSize = size;
        meta.root = 1;
        meta.pageCount = 3; // pages 0..2 exist: the chain takes 3 and 4
        BufferPool pool = new BufferPool(file, 64L * size);
        Allocator alloc = new Allocator(pool, meta);
        JsonObject o = v.getAsJsonObject("overflow");
        byte[] value = hex(o, "value");
        int first = Overflow.write(alloc, pool, value, 7);
        assertThat(first).isEqualTo(num(o, "first"));
        JsonArray pages = o.getAsJsonArray("pages");
        for (int i = 0; i < 2; i++) {
            Frame f = pool.fetch(first - i);
            assertThat(Hex.encodeHexString(sealed(f.data.clone())))
                    .isEqualTo(pages.get(i).getAsString());
            pool.unpin(f);
        }
        assertThat(Overflow.read(pool, first, value.length)).isEqualTo(value);

        JsonObject fr = v.getAsJsonObject("free");
        Frame six = pool.create(6);
        pool.unpin(six);
        meta.pageCount = 7;
        alloc.free(num(fr, "number"), num(fr, "lsn"));
        Frame f = pool.fetch(6);
        assertThat(Hex.encodeHexString(sealed(f.data.clone())))
                .isEqualTo(fr.get("bytes").getAsString());
        pool.unpin(f);

        JsonObject m = v.getAsJsonObject("meta");
        Meta want = new Meta();
        want.pageSize = size;
        want.lsn = num(m, "lsn");
        want.root = num(m, "root");
        want.pageCount = num(m, "page_count");
        want.freeHead = num(m, "free_head");
        want.freeCount = num(m, "free_count");
        want.keyCount = num(m, "key_count");
        want.logNumber = num(m, "log_number");
        want.largestValue = num(m, "largest_value");
        byte[] bytes = sealed(want.encode());
        assertThat(Hex.encodeHexString(bytes)).isEqualTo(m.get("bytes").getAsString());
        Meta back = Meta.decode(hex(m, "bytes"), "meta");
        assertThat(back.encode()).isEqualTo(want.encode());
        assertThat(meta.freeHead).isEqualTo(6);
    }

    @Test
    void aDoubleWriteFileIsWrittenByteForByteAndFoundWhole() throws Exception {
        JsonObject v = load();
        JsonObject d = v.getAsJsonObject("double_write");
        SimulatedDirectory disk = new SimulatedDirectory();
        WalDirectory dir = disk.mount();
        WalFile file = dir.open(DoubleWrite.NAME);
        byte[] leaf = hex(v.getAsJsonObject("leaf"), "bytes");
        byte[] meta = hex(v.getAsJsonObject("meta"), "bytes");
        DoubleWrite.write(
                file, num(v, "page_size"), num(d, "lsn"), List.of(2, 0), List.of(leaf, meta));
        assertThat(Hex.encodeHexString(disk.bytes(DoubleWrite.NAME)))
                .isEqualTo(d.get("bytes").getAsString());
        assertThat(DoubleWrite.whole(file)).containsExactly(2, 0);
        byte[] torn = disk.bytes(DoubleWrite.NAME);
        disk.replace(DoubleWrite.NAME, java.util.Arrays.copyOf(torn, torn.length - 1));
        assertThat(DoubleWrite.whole(dir.open(DoubleWrite.NAME))).isNull();
    }
}
