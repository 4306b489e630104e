package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;

/**
 * Opens the tree's file, or makes a new one: a meta page and an empty root leaf, forced, and the
 * file's name made durable, before anything may depend on it.
 */
final class TreeFile {

    /** The tree's file in its directory. */
    static final String NAME = "btree.db";

    /** The file and its meta page as of the last checkpoint. */
    record Opened(PageFile file, Meta meta, boolean created) {}

    private TreeFile() {}

    /**
     * Opens {@link #NAME} in {@code dir}; a new file gets {@code pageSize}, an existing one keeps
     * the page size it was made with.
     */
    static Opened open(WalDirectory dir, int pageSize) throws IOException {
        Page.checkSize(pageSize);
        boolean existed = dir.exists(NAME);
        WalFile raw = dir.open(NAME);
        try {
            if (!existed || raw.size() == 0) {
                PageFile file = new PageFile(raw, pageSize, dir.describe(NAME));
                Meta meta = new Meta();
                meta.pageSize = pageSize;
                meta.root = 1;
                meta.pageCount = 2;
                byte[] root = new byte[pageSize];
                Page.format(root, Page.LEAF, 1, 0);
                file.write(1, root);
                file.write(0, meta.encode());
                file.force();
                dir.sync();
                return new Opened(file, meta, true);
            }
            byte[] head = new byte[48];
            raw.read(java.nio.ByteBuffer.wrap(head), 0);
            int size = Page.getInt(head, 44);
            try {
                Page.checkSize(size);
            } catch (IllegalArgumentException e) {
                throw new CorruptPageException(
                        dir.describe(NAME) + " page 0 (the meta page) names no valid page size");
            }
            PageFile file = new PageFile(raw, size, dir.describe(NAME));
            byte[] page = new byte[size];
            file.read(0, page);
            Meta meta = Meta.decode(page, file.describe(0));
            return new Opened(file, meta, false);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }
}
