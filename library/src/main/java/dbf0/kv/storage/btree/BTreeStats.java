package dbf0.kv.storage.btree;

/**
 * The tree's shape and the pool's counters, for INFO and the benchmarks.
 *
 * @param pageSize bytes per page
 * @param pages pages in the tree's file (as of now, in memory; the file catches up at checkpoints)
 * @param freePages pages on the free list
 * @param height levels from the root to the leaves, both included
 * @param poolFrames the pool's bound, in pages
 * @param dirtyPages pages changed since the checkpoint that last wrote them
 * @param framesOverBound frames the pool holds past its bound now (see {@link BufferPool})
 * @param reads pages read from the file since open
 * @param hits page fetches answered from the pool since open
 * @param evictions pages evicted since open
 * @param checkpoints checkpoints completed since open (the one at open not counted)
 * @param bytesWritten bytes written since open: to the logs, and each checkpointed page twice (the
 *     double-write file, then in place)
 */
public record BTreeStats(
        int pageSize,
        long pages,
        long freePages,
        int height,
        long poolFrames,
        long dirtyPages,
        long framesOverBound,
        long reads,
        long hits,
        long evictions,
        long checkpoints,
        long bytesWritten) {}
