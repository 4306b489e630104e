package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The table writer at the edges of its own buffers. */
class TableWriterTest {

    /**
     * With 6-byte keys an index entry is 32 bytes (offset, length, two length-prefixed keys), so
     * 128 one-entry blocks fill the index's first 4 KiB exactly; the block count written after the
     * last entry must still find room. Tables of 127 to 129 such blocks are written and read back.
     */
    @Test
    void anIndexThatEndsExactlyAtItsBufferStillTakesTheBlockCount() throws Exception {
        ByteArrayWrapper value = new ByteArrayWrapper(new byte[BlockBuilder.TARGET_BYTES]);
        for (int blocks = 127; blocks <= 129; blocks++) {
            SimulatedDirectory disk = new SimulatedDirectory();
            WalFile file = disk.mount().open("000001.sst");
            TableWriter writer = new TableWriter(file, 1, TableWriter.Older.NOTHING);
            for (int i = 0; i < blocks; i++) {
                writer.add(key(i), Cell.put(i + 1, value));
            }
            TableMeta meta = writer.finish();
            Table table = Table.open(file, 1, "000001.sst");
            assertThat(table.blocks()).as("blocks of a %d-entry table", blocks).isEqualTo(blocks);
            assertThat(meta.entries()).isEqualTo(blocks);
            assertThat(table.meta().newKeys()).as("puts over nothing").isEqualTo(blocks);
            assertThat(table.lastKey(table.findBlock(key(blocks - 1)))).isEqualTo(key(blocks - 1));
        }
    }

    private static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(String.format("%06d", i).getBytes(StandardCharsets.US_ASCII));
    }
}
