package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The page's header and the slotted layout: cells of random lengths inserted and removed in random
 * order keep key order and their bytes, the free space adds up, holes are reused after a compact,
 * and a sealed page's checksum catches any flipped byte.
 */
class SlottedPageTest {

    @Provide
    Arbitrary<int[]> operations() {
        return Arbitraries.integers().between(0, 1_000_000).array(int[].class).ofMaxSize(300);
    }

    /** Each int: a key from 0..199, insert or remove, a value length. Mirrored in a TreeMap. */
    @Property(tries = 200)
    void cellsStayInKeyOrderAndKeepTheirBytes(@ForAll("operations") int[] ops) {
        byte[] page = new byte[Page.DEFAULT_SIZE];
        Page.format(page, Page.LEAF, 7, 1);
        TreeMap<String, byte[]> model = new TreeMap<>();
        for (int op : ops) {
            String k = String.format("key%03d", op % 200);
            byte[] key = k.getBytes();
            int i = SlottedPage.search(page, key);
            if ((op / 200) % 3 == 0) {
                if (i >= 0) {
                    SlottedPage.remove(page, i);
                    model.remove(k);
                }
                continue;
            }
            byte[] value = new byte[(op / 600) % 300];
            Arrays.fill(value, (byte) op);
            if (i >= 0) {
                SlottedPage.remove(page, i);
                model.remove(k);
                i = -(i + 1);
            }
            int before = SlottedPage.freeSpace(page);
            byte[] cell = Cells.leafInline(key, value);
            boolean fitted = SlottedPage.insert(page, -(i + 1), cell);
            assertThat(fitted).isEqualTo(before >= cell.length + Cells.SLOT);
            if (fitted) {
                model.put(k, value);
                assertThat(SlottedPage.freeSpace(page))
                        .isEqualTo(before - cell.length - Cells.SLOT);
            }
        }
        assertThat(Page.count(page)).isEqualTo(model.size());
        int i = 0;
        int used = 0;
        for (Map.Entry<String, byte[]> e : model.entrySet()) {
            assertThat(new String(SlottedPage.key(page, i))).isEqualTo(e.getKey());
            int at = SlottedPage.offset(page, i);
            assertThat(Cells.inlineValue(page, at)).isEqualTo(e.getValue());
            used += SlottedPage.cellLength(page, i) + Cells.SLOT;
            i++;
        }
        assertThat(SlottedPage.usedSpace(page)).isEqualTo(used);
        Page.seal(page);
        assertThat(Page.problem(page, 7)).isNull();
    }

    @Test
    void aCompactTurnsHolesBackIntoRoom() {
        byte[] page = new byte[Page.MIN_SIZE];
        Page.format(page, Page.LEAF, 1, 0);
        int n = 0;
        while (SlottedPage.insert(
                page, n, Cells.leafInline(String.format("k%03d", n).getBytes(), new byte[40]))) {
            n++;
        }
        assertThat(n).isGreaterThan(10);
        for (int i = n - 2; i >= 1; i -= 2) {
            SlottedPage.remove(page, i); // holes in the middle of the cell area
        }
        assertThat(Page.fragmented(page)).isPositive();
        byte[] big = Cells.leafInline("k500".getBytes(), new byte[100]);
        assertThat(Page.cellsStart(page) - SlottedPage.slotsEnd(page))
                .isLessThan(big.length + Cells.SLOT);
        assertThat(SlottedPage.insert(page, Page.count(page), big)).isTrue();
        assertThat(Page.fragmented(page)).isZero(); // the insert compacted first
        assertThat(new String(SlottedPage.key(page, Page.count(page) - 1))).isEqualTo("k500");
    }

    @Test
    void everyFlippedByteIsCaughtByTheChecksum() {
        byte[] page = new byte[Page.MIN_SIZE];
        Page.format(page, Page.INNER, 3, 42);
        Page.link(page, 9);
        SlottedPage.insert(page, 0, Cells.inner("m".getBytes(), 10));
        Page.seal(page);
        assertThat(Page.problem(page, 3)).isNull();
        assertThat(Page.problem(page, 4)).contains("says it is page 3");
        for (int at = 0; at < page.length; at += 37) {
            byte[] bad = page.clone();
            bad[at] ^= 0x10;
            assertThat(Page.problem(bad, 3)).as("byte %d flipped", at).contains("checksum");
        }
    }

    @Test
    void cellBoundsLetAFullPageSplitInTwo() {
        for (int size = Page.MIN_SIZE; size <= Page.MAX_SIZE; size *= 2) {
            int capacity = size - Page.HEADER_BYTES;
            // a full page plus the largest cell, halved, plus one cell of slack must fit a page
            int max = Cells.maxCell(size);
            assertThat((capacity + max) / 2 + max).isLessThanOrEqualTo(capacity);
            assertThat(Cells.maxKey(size)).isGreaterThan(200);
            assertThat(Cells.fitsInline(size, Cells.maxKey(size), 4)).isTrue();
            assertThat(Cells.fitsInline(size, Cells.maxKey(size), 5)).isFalse();
        }
        assertThatThrownBy(() -> Page.checkSize(3000)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> Page.checkSize(65536)).hasMessageContaining("32768");
    }
}
