package dbf0.kv.storage.lsm;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Data blocks recently read, bounded by their bytes (Caffeine's weigher; Caffeine evicts by its
 * TinyLFU policy, which keeps blocks read often over blocks read once by a scan). Keyed by table
 * and block offset. Counts hits and disk reads, the read amplification's raw numbers.
 */
final class BlockCache {

    /** A block's place: its table's number and its offset in the file. */
    private record Key(long table, long offset) {}

    private final Cache<Key, Block> cache;
    private final LongAdder hits = new LongAdder();
    private final LongAdder reads = new LongAdder();

    BlockCache(long maxBytes) {
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher((Key k, Block b) -> b.bytes() + 64)
                        .executor(Runnable::run) // evict on the caller: no pool thread needed
                        .build();
    }

    /**
     * Block {@code block} of {@code table}: from the cache, or read from disk and kept, or (with
     * {@code cacheOnly}) null when it is not cached.
     */
    Block get(Table table, int block, boolean cacheOnly) throws IOException {
        Key key = new Key(table.number(), table.blockOffset(block));
        Block cached = cache.getIfPresent(key);
        if (cached != null) {
            hits.increment();
            return cached;
        }
        if (cacheOnly) {
            return null;
        }
        Block read = table.readBlock(block);
        reads.increment();
        cache.put(key, read);
        return read;
    }

    long hits() {
        return hits.sum();
    }

    long reads() {
        return reads.sum();
    }
}
