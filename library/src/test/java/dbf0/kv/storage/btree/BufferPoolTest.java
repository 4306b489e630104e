package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalDirectory;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The pool: at most its bound of frames while pages are clean; a pinned or dirty page is never
 * evicted; CLOCK keeps a page used again over one used once; a page whose bytes went bad fails its
 * read with the file and the page named, and is read again (not cached broken) next time.
 */
class BufferPoolTest {

    static final int SIZE = 1024;

    /** A file of {@code pages} leaf pages, each with its number in its first cell. */
    static PageFile file(SimulatedDirectory disk, int pages) throws IOException {
        WalDirectory dir = disk.mount();
        PageFile file = new PageFile(dir.open("t.db"), SIZE, "sim:/t.db");
        for (int p = 0; p < pages; p++) {
            byte[] page = new byte[SIZE];
            Page.format(page, Page.LEAF, p, p);
            SlottedPage.insert(page, 0, Cells.leafInline(("p" + p).getBytes(), new byte[0]));
            file.write(p, page);
        }
        return file;
    }

    @Test
    void cleanPagesStayWithinTheBoundAndComeBackWhole() throws IOException {
        BufferPool pool = new BufferPool(file(new SimulatedDirectory(), 100), 10L * SIZE);
        for (int round = 0; round < 3; round++) {
            for (int p = 0; p < 100; p++) {
                Frame f = pool.fetch(p);
                assertThat(new String(SlottedPage.key(f.data, 0))).isEqualTo("p" + p);
                pool.unpin(f);
                assertThat(pool.framesOverBound()).isZero();
            }
        }
        assertThat(pool.counters()[2]).as("evictions").isGreaterThanOrEqualTo(290);
    }

    @Test
    void pinnedAndDirtyPagesAreNeverEvicted() throws IOException {
        BufferPool pool = new BufferPool(file(new SimulatedDirectory(), 100), 8L * SIZE);
        Frame pinned = pool.fetch(1);
        Frame dirty = pool.fetch(2);
        dirty.writeLatch();
        SlottedPage.remove(dirty.data, 0);
        pool.markDirty(dirty);
        dirty.writeUnlatch();
        pool.unpin(dirty);
        for (int p = 3; p < 100; p++) {
            pool.unpin(pool.fetch(p));
        }
        assertThat(pool.fetchIfCached(1)).isSameAs(pinned);
        Frame again = pool.fetchIfCached(2);
        assertThat(again).isSameAs(dirty);
        assertThat(Page.count(again.data)).isZero(); // the change is still there, unwritten
        assertThat(pool.dirtyBytes()).isEqualTo(SIZE);
    }

    @Test
    void aPageUsedAgainOutlivesPagesUsedOnce() throws IOException {
        BufferPool pool = new BufferPool(file(new SimulatedDirectory(), 100), 8L * SIZE);
        for (int p = 10; p < 100; p++) {
            pool.unpin(pool.fetch(0)); // hot: its bit is set again before the hand comes round
            pool.unpin(pool.fetch(p));
        }
        Frame hot = pool.fetchIfCached(0);
        assertThat(hot).isNotNull();
        pool.unpin(hot);
    }

    @Test
    void aCorruptPageNamesTheFileAndThePage() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        BufferPool pool = new BufferPool(file(disk, 10), 8L * SIZE);
        byte[] bytes = disk.bytes("t.db");
        bytes[7 * SIZE + 100] ^= 1;
        disk.replace("t.db", bytes);
        assertThatThrownBy(() -> pool.fetch(7))
                .isInstanceOf(CorruptPageException.class)
                .hasMessageContaining("sim:/t.db page 7 (byte offset 7168) is corrupt: checksum");
        assertThatThrownBy(() -> pool.fetch(7)).isInstanceOf(CorruptPageException.class);
        Frame fine = pool.fetch(6);
        assertThat(Page.number(fine.data)).isEqualTo(6);
        pool.unpin(fine);
    }
}
