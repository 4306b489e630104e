package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;

/**
 * A {@link KvIterator} over one table from a key on, a block at a time: scans read through the
 * block cache, compactions around it, {@value #READ_AHEAD} blocks per read call.
 */
final class TableIterator extends CursorIterator {

    /** Blocks a compaction reads with one call: about 256 KiB. */
    static final int READ_AHEAD = 64;

    private final Table table;
    private final BlockCache cache;
    private final boolean cached;

    /** Blocks read ahead for a compaction, and the index of the first of them. */
    private Block[] ahead = new Block[0];

    private int aheadFrom;
    private int blockIndex;
    private Block block;
    private int entry;

    TableIterator(Table table, BlockCache cache, boolean cached, ByteArrayWrapper from) {
        this.table = table;
        this.cache = cache;
        this.cached = cached;
        this.blockIndex = from == null ? 0 : table.findBlock(from);
        load();
        if (block != null && from != null) {
            entry = block.seek(from);
        }
        settle();
    }

    private void load() {
        if (blockIndex >= table.blocks()) {
            block = null;
            return;
        }
        try {
            if (cached) {
                block = cache.get(table, blockIndex, false);
            } else {
                if (blockIndex < aheadFrom || blockIndex >= aheadFrom + ahead.length) {
                    aheadFrom = blockIndex;
                    int to = Math.min(table.blocks(), blockIndex + READ_AHEAD);
                    ahead = table.readBlocks(blockIndex, to);
                }
                block = ahead[blockIndex - aheadFrom];
            }
        } catch (IOException e) {
            throw new StorageFailureException(table.name() + ": read failed: " + e, e);
        }
        entry = 0;
    }

    /** Moves past exhausted blocks and loads the current entry. */
    private void settle() {
        while (block != null && entry >= block.count()) {
            blockIndex++;
            load();
        }
        if (block == null) {
            at(null, null);
        } else {
            at(block.key(entry), block.cell(entry));
        }
    }

    @Override
    public void next() {
        entry++;
        settle();
    }
}
