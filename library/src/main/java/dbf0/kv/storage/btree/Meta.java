package dbf0.kv.storage.btree;

/**
 * Page 0: where the tree starts and what the file holds, as of the last checkpoint. After the page
 * header (whose LSN is the checkpoint's):
 *
 * <pre>
 *  32 u64 magic       "dbf0BTR1"
 *  40 u32 version     1
 *  44 u32 pageSize    the file's page size; the store refuses to open it with another
 *  48 u32 root        the root page
 *  52 u32 pageCount   pages in the file, this one included
 *  56 u32 freeHead    the first page of the free list, 0 if empty
 *  60 u32 freeCount   pages on the free list
 *  64 u64 keyCount    keys in the tree
 *  72 u64 logNumber   the first write-ahead log whose records the file may not hold yet
 *  80 u64 largestValue a bound on every value's length (what a v2 BATCH sizes its reply by)
 * </pre>
 *
 * Mutable: the tree keeps the current values here under {@link Allocator}'s lock; a checkpoint
 * encodes a copy taken while no write runs.
 */
final class Meta {

    static final long MAGIC = 0x6462663042545231L; // "dbf0BTR1"
    static final int VERSION = 1;

    int pageSize;
    int root;
    int pageCount;
    int freeHead;
    int freeCount;
    long keyCount;
    long logNumber;
    long largestValue;
    long lsn;

    Meta copy() {
        Meta m = new Meta();
        m.pageSize = pageSize;
        m.root = root;
        m.pageCount = pageCount;
        m.freeHead = freeHead;
        m.freeCount = freeCount;
        m.keyCount = keyCount;
        m.logNumber = logNumber;
        m.largestValue = largestValue;
        m.lsn = lsn;
        return m;
    }

    /** The meta page's bytes, unsealed. */
    byte[] encode() {
        byte[] page = new byte[pageSize];
        Page.format(page, Page.META, 0, lsn);
        Page.putLong(page, 32, MAGIC);
        Page.putInt(page, 40, VERSION);
        Page.putInt(page, 44, pageSize);
        Page.putInt(page, 48, root);
        Page.putInt(page, 52, pageCount);
        Page.putInt(page, 56, freeHead);
        Page.putInt(page, 60, freeCount);
        Page.putLong(page, 64, keyCount);
        Page.putLong(page, 72, logNumber);
        Page.putLong(page, 80, largestValue);
        return page;
    }

    /**
     * Reads a checked meta page.
     *
     * @throws CorruptPageException if it is no meta page of this format
     */
    static Meta decode(byte[] page, String where) {
        if (Page.type(page) != Page.META || Page.getLong(page, 32) != MAGIC) {
            throw new CorruptPageException(where + " is not a dbf0 B+tree's meta page");
        }
        int version = Page.getInt(page, 40);
        if (version != VERSION) {
            throw new CorruptPageException(
                    where + " has format version " + version + "; this build reads " + VERSION);
        }
        Meta m = new Meta();
        m.pageSize = Page.getInt(page, 44);
        m.root = Page.getInt(page, 48);
        m.pageCount = Page.getInt(page, 52);
        m.freeHead = Page.getInt(page, 56);
        m.freeCount = Page.getInt(page, 60);
        m.keyCount = Page.getLong(page, 64);
        m.logNumber = Page.getLong(page, 72);
        m.largestValue = Page.getLong(page, 80);
        m.lsn = Page.lsn(page);
        if (m.pageSize != page.length
                || m.root <= 0
                || m.root >= m.pageCount
                || m.freeHead < 0
                || m.freeHead >= m.pageCount) {
            throw new CorruptPageException(where + " holds impossible values");
        }
        return m;
    }
}
