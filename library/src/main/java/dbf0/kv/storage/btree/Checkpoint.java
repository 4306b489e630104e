package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Read eighth: a checkpoint, which brings the tree's file up to date with the pages in memory, all
 * at once, so that the file is always a whole tree as of some moment.
 *
 * <p>Why the file must always be a whole tree: the write-ahead log holds logical records (put this
 * key, delete that one), and replaying them needs a tree to replay into. A file in which a split
 * had reached the new right page but not the parent would be a tree with a lost page. So changed
 * pages are not written back one by one as the pool evicts them (that would be "steal"); they stay
 * in memory until a checkpoint writes all of them, through the {@link DoubleWrite} file, together
 * with a {@link Meta} page that names the first log the file does not hold yet. Replaying a put or
 * delete twice is harmless (the last write of a key wins either way), so recovery simply replays
 * every log from that one on into the file's tree.
 *
 * <p>A checkpoint has two halves. {@link #take} runs while no change does (the store takes it
 * between two of the log's write calls, when it starts a new log): it copies the dirty pages and
 * the meta, a moment's work. {@link #write} then runs in the background while writes go on, in this
 * order, each step only after the one before is durable:
 *
 * <ol>
 *   <li>the copies to the double-write file, forced;
 *   <li>the copies in place in the tree's file (the meta page among them), forced; the checkpoint
 *       is now what recovery finds;
 *   <li>the tree's file cut to the meta's page count, if a clear shrank it;
 *   <li>the double-write file emptied, forced;
 *   <li>(by the store) the logs the meta no longer names deleted.
 * </ol>
 *
 * A page changed again after the copy keeps its dirty mark: its LSN is then above the checkpoint's.
 */
final class Checkpoint {

    /** What {@link #take} copied. */
    record Snapshot(Meta meta, List<Frame> frames, List<Integer> pages, List<byte[]> images) {
        int size() {
            return pages.size() + 1;
        }
    }

    private Checkpoint() {}

    /** Copies the dirty pages and the meta; no change may run meanwhile. */
    static Snapshot take(BTree tree, long logNumber) {
        Meta meta = tree.snapshotMeta();
        meta.logNumber = logNumber;
        List<Frame> frames = tree.pool.dirtyFrames();
        List<Integer> pages = new ArrayList<>(frames.size());
        List<byte[]> images = new ArrayList<>(frames.size());
        for (Frame f : frames) {
            f.readLatch();
            try {
                pages.add(f.page);
                images.add(f.data.clone());
            } finally {
                f.readUnlatch();
            }
        }
        return new Snapshot(meta, frames, pages, images);
    }

    /** Writes a snapshot: the steps of the class comment but the last. */
    static void write(Snapshot s, BufferPool pool, WalFile doubleWrite) throws IOException {
        PageFile file = pool.file();
        List<Integer> numbers = new ArrayList<>(s.pages());
        List<byte[]> sealed = new ArrayList<>(s.images());
        numbers.add(0);
        sealed.add(s.meta().encode());
        for (byte[] page : sealed) {
            Page.seal(page);
        }
        DoubleWrite.write(doubleWrite, file.pageSize(), s.meta().lsn, numbers, sealed);
        for (int i = 0; i < numbers.size(); i++) {
            file.writeSealed(numbers.get(i), sealed.get(i));
        }
        file.force();
        if (file.pages() > s.meta().pageCount) {
            file.truncate(s.meta().pageCount);
            file.force();
        }
        DoubleWrite.clear(doubleWrite);
        for (int i = 0; i < s.frames().size(); i++) {
            Frame f = s.frames().get(i);
            f.readLatch();
            try {
                if (f.page == s.pages().get(i) && Page.lsn(f.data) <= s.meta().lsn) {
                    pool.markClean(f);
                }
            } finally {
                f.readUnlatch();
            }
        }
        pool.trim();
    }
}
