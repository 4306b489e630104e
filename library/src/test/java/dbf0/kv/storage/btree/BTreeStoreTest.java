package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.wal.SimulatedDirectory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The store as a whole on a simulated disk: a page damaged on disk is caught by its checksum and
 * named (file and page) when read; a key longer than a page allows is refused before it reaches the
 * log; a cleared store gives its pages back to the file system at the next checkpoint; reads that
 * need the disk answer through getAsync.
 */
class BTreeStoreTest {

    static BTreeOptions options() {
        return BTreeOptions.defaults(Path.of("sim"))
                .withPageSize(1024)
                .withBufferPoolBytes(16 * 1024)
                .withCheckpointLogBytes(16 * 1024);
    }

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes());
    }

    @Test
    void aCorruptPageIsCaughtByItsChecksumAndNamed() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            for (int i = 0; i < 500; i++) {
                store.put(b(String.format("k%04d", i)), b("value " + i));
            }
        }
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            assertThat(store.get(b("k0123"))).isEqualTo(b("value 123")); // checkpointed at open
        }
        byte[] file = disk.bytes(TreeFile.NAME);
        int root = java.nio.ByteBuffer.wrap(file).getInt(48);
        int leaf = 1;
        while (leaf == root || file[leaf * 1024 + Page.TYPE] != Page.LEAF) {
            leaf++;
        }
        file[leaf * 1024 + 500] ^= 0x40;
        disk.replace(TreeFile.NAME, file);
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            assertThatThrownBy(
                            () -> {
                                for (int i = 0; i < 500; i++) {
                                    store.get(b(String.format("k%04d", i)));
                                }
                            })
                    .isInstanceOf(CorruptPageException.class)
                    .hasMessageContaining(
                            "sim:/btree.db page "
                                    + leaf
                                    + " (byte offset "
                                    + leaf * 1024
                                    + ") is corrupt: checksum");
        }
    }

    @Test
    void aKeyLongerThanAPageAllowsIsRefusedBeforeTheLog() throws Exception {
        try (BTreeStore store = BTreeStore.open(options(), new SimulatedDirectory().mount())) {
            ByteArrayWrapper longKey = new ByteArrayWrapper(new byte[Cells.maxKey(1024) + 1]);
            assertThatThrownBy(() -> store.put(longKey, b("v")))
                    .isInstanceOf(StorageFailureException.class)
                    .hasMessageContaining("over the B+tree's " + Cells.maxKey(1024));
            assertThat(store.walStats().recordsWritten()).isZero();
            store.put(new ByteArrayWrapper(new byte[Cells.maxKey(1024)]), b("fits"));
        }
    }

    @Test
    void aClearGivesThePagesBackAndColdReadsGoAsync() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            for (int i = 0; i < 2000; i++) {
                store.put(b(String.format("k%04d", i)), new ByteArrayWrapper(new byte[300]));
            }
            assertThat(store.getAsync(b("k0001")).get())
                    .hasToString(new ByteArrayWrapper(new byte[300]).toString());
            assertThat(store.stats().checkpoints()).isPositive();
            store.clear();
            assertThat(store.get(b("k0001"))).isNull();
            assertThat(store.size()).isZero();
        }
        int before = disk.bytes(TreeFile.NAME).length;
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            assertThat(store.size()).isZero();
            assertThat(store.scan(null, null, 10)).isEmpty();
        }
        assertThat(disk.bytes(TreeFile.NAME).length).isLessThan(before).isEqualTo(2 * 1024);
    }
}
