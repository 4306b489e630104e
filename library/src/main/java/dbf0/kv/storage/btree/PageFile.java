package dbf0.kv.storage.btree;

import dbf0.kv.storage.wal.WalFile;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Read fourth: the tree's file as an array of pages. Page {@code n} is the bytes from {@code n *
 * pageSize}; reading one checks its checksum and its own number ({@link Page#problem}), writing one
 * stamps the checksum. Nothing here caches: that is the {@link BufferPool}'s job.
 *
 * <p>The file is reached through {@link WalFile}, the same narrow interface the write-ahead log
 * uses, so that the power-loss tests put the whole store on a simulated disk.
 */
final class PageFile {

    private final WalFile file;
    private final int pageSize;
    private final String name;

    PageFile(WalFile file, int pageSize, String name) {
        this.file = file;
        this.pageSize = pageSize;
        this.name = name;
    }

    int pageSize() {
        return pageSize;
    }

    String name() {
        return name;
    }

    /** Whole pages in the file. */
    long pages() throws IOException {
        return file.size() / pageSize;
    }

    /**
     * Reads page {@code number} into {@code into} and checks it.
     *
     * @throws CorruptPageException naming the file and the page if the bytes are not a good page
     * @throws IOException if the read fails or the file ends before the page does
     */
    void read(int number, byte[] into) throws IOException {
        readRaw(number, into);
        String problem = Page.problem(into, number);
        if (problem != null) {
            throw new CorruptPageException(describe(number) + " is corrupt: " + problem);
        }
    }

    /** Reads page {@code number}'s bytes unchecked. */
    void readRaw(int number, byte[] into) throws IOException {
        ByteBuffer dst = ByteBuffer.wrap(into);
        long at = (long) number * pageSize;
        while (dst.hasRemaining()) {
            int n = file.read(dst, at + dst.position());
            if (n < 0) {
                throw new EOFException(describe(number) + " is past the file's end");
            }
        }
    }

    /** Seals {@code page} (its checksum) and writes it at its place. */
    void write(int number, byte[] page) throws IOException {
        Page.seal(page);
        file.write(ByteBuffer.wrap(page), (long) number * pageSize);
    }

    /** Writes bytes that are already a sealed page (a copy from the double-write file). */
    void writeSealed(int number, byte[] page) throws IOException {
        file.write(ByteBuffer.wrap(page), (long) number * pageSize);
    }

    void force() throws IOException {
        file.force();
    }

    /** Cuts the file to {@code pages} pages (after a clear, which leaves two). */
    void truncate(long pages) throws IOException {
        file.truncate(pages * pageSize);
    }

    String describe(int number) {
        return name
                + " page "
                + Integer.toUnsignedLong(number)
                + " (byte offset "
                + (long) number * pageSize
                + ")";
    }

    void close() throws IOException {
        file.close();
    }
}
