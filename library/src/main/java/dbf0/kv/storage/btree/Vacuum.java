package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Read ninth: a vacuum gives the file's space back. Deletes leave leaves half empty or empty (they
 * never merge, see {@link BTree}) and freed pages on the free list; new keys reuse both, but the
 * file never shrinks. A vacuum rebuilds the tree dense into a new file ({@link DenseBuilder}) and
 * puts it in place of the old one, as SQLite's VACUUM does.
 *
 * <p>It holds the whole tree while it runs, as SQLite's VACUUM and PostgreSQL's VACUUM FULL hold
 * their tables: writes queue behind the log, reads behind the tree's lock, and no checkpoint runs
 * (the caller holds the {@link Checkpointer}). The order, each step after the one before is done:
 *
 * <ol>
 *   <li>every key in order, from the pool (so the pages changed since the last checkpoint too),
 *       into {@value #NAME}, the meta page last, forced;
 *   <li>{@value #NAME} renamed over the tree's file, the directory forced;
 *   <li>the pool forgets every page (the new file holds them all) and reads the new file.
 * </ol>
 *
 * Memory: one page per level of the new tree, and one overflow page at a time ({@link
 * DenseBuilder}).
 *
 * <p>A power cut before the rename leaves the old file, whole, and the new one unnamed or named
 * {@value #NAME}, which opening deletes; after it, the new file. Either way the logs are untouched:
 * the new meta names the current log, as the old one does, and replaying a log whose writes a file
 * already holds changes nothing (a key's last write wins). The directory is forced before any
 * checkpoint may write a page of the new file through the double-write file: a repair must never
 * write such a page into the old file.
 */
final class Vacuum {

    /** The file being built, while a vacuum runs. */
    static final String NAME = "btree.vacuum";

    private Vacuum() {}

    /**
     * Rebuilds {@code tree} into a new file in {@code dir} and switches to it; {@code currentLog}
     * is the log the writes since the last checkpoint are in. No checkpoint may run meanwhile. If
     * the new name cannot be made durable, {@code stop} is told why: the store must then take no
     * more writes and run no more checkpoints until it is opened again.
     *
     * @throws IOException if a step before the switch fails; the tree is then as it was
     */
    static VacuumResult run(BTree tree, WalDirectory dir, long currentLog, Consumer<String> stop)
            throws IOException {
        tree.shape.writeLock().lock();
        tree.rootLatch.writeLock().lock();
        tree.alloc.lock().lock();
        try {
            long before = tree.meta.pageCount;
            if (dir.exists(NAME)) {
                dir.delete(NAME); // what a vacuum that failed left
            }
            WalFile raw = dir.open(NAME);
            Meta meta;
            int rootLevel;
            try {
                PageFile out = new PageFile(raw, tree.pool.pageSize(), dir.describe(NAME));
                long lsn = tree.lsn.incrementAndGet();
                DenseBuilder builder = new DenseBuilder(out, lsn);
                copy(tree, builder);
                int[] root = builder.finish();
                meta = tree.meta.copy();
                meta.root = root[0];
                rootLevel = root[1];
                meta.pageCount = builder.pageCount();
                meta.freeHead = 0;
                meta.freeCount = 0;
                meta.keyCount = builder.keys();
                meta.logNumber = currentLog;
                meta.largestValue = tree.largestValue.get();
                meta.lsn = lsn;
                out.write(0, meta.encode());
                out.force();
                dir.rename(NAME, TreeFile.NAME);
            } catch (IOException | RuntimeException e) {
                raw.close();
                dir.delete(NAME);
                throw e;
            }
            try {
                dir.sync();
            } catch (IOException | RuntimeException e) {
                // Which file a power cut would leave under the name is unknown: a checkpoint into
                // either could be lost, and with it the logs it deletes. Opening again decides.
                raw.close();
                stop.accept(
                        "a vacuum renamed its new file but could not force the directory ("
                                + e.getMessage()
                                + "); writes are refused until restart, reads go on");
                throw e;
            }
            PageFile old = tree.pool.file();
            tree.pool.replaceFile(new PageFile(raw, meta.pageSize, dir.describe(TreeFile.NAME)));
            try {
                old.close();
            } catch (IOException e) {
                // nothing is lost: the old file is no longer named, and nothing reads it any more
            }
            tree.meta.root = meta.root;
            tree.meta.pageCount = meta.pageCount;
            tree.meta.freeHead = 0;
            tree.meta.freeCount = 0;
            tree.rootLevel = rootLevel;
            return new VacuumResult(before, meta.pageCount, meta.keyCount);
        } finally {
            tree.alloc.lock().unlock();
            tree.rootLatch.writeLock().unlock();
            tree.shape.writeLock().unlock();
        }
    }

    /** Every cell from the leftmost leaf along the links, each value's chain copied. */
    private static void copy(BTree tree, DenseBuilder builder) throws IOException {
        Frame f = tree.leaf(new byte[0], false, false);
        try {
            while (true) {
                for (int i = 0, n = Page.count(f.data); i < n; i++) {
                    int at = SlottedPage.offset(f.data, i);
                    byte[] key = SlottedPage.key(f.data, i);
                    byte[] cell =
                            Cells.outside(f.data, at)
                                    ? Cells.leafOutside(
                                            key,
                                            Cells.valueLength(f.data, at),
                                            builder.copyChain(
                                                    tree.pool,
                                                    Cells.firstOverflow(f.data, at),
                                                    Cells.valueLength(f.data, at)))
                                    : SlottedPage.cell(f.data, i);
                    builder.add(key, cell);
                }
                int next = Page.link(f.data);
                if (next == 0) {
                    return;
                }
                Frame n = tree.pool.fetch(next);
                n.readLatch();
                tree.release(f, false);
                f = n;
                tree.check(f, Page.LEAF, 0);
            }
        } finally {
            tree.release(f, false);
        }
    }
}
