package dbf0.kv.storage.wal;

import dbf0.common.Words;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Reads a log from its start, handing every good record to a consumer, and tells a torn tail from
 * corruption in the middle.
 *
 * <p>A crash while appending leaves at most the last write unfinished: a partial record, or a
 * whole-looking one whose bytes never all reached the disk (a wrong checksum), or zeros where the
 * file system extended the file. None of it was acknowledged under {@code always}, so it is cut
 * off. But a bad record <i>followed by a good one</i> cannot be a crash's doing: the disk or
 * someone else damaged the file, and the good records after it would be silently lost by
 * truncating. So that is {@link Outcome#corruptAt} set, and the caller refuses to start unless told
 * to truncate anyway.
 *
 * <p>"Followed by a good one" is tested by looking for a record that checks out at every byte
 * offset after the bad one: a length in range, the body within the file, the checksum right. Random
 * bytes pass by chance with odds of about 2<sup>-32</sup> per offset.
 */
public final class WalReader {

    /**
     * Bytes read from the file at a time; a record larger than this gets a buffer of its own size.
     */
    static final int CHUNK = 1 << 20;

    /**
     * What reading found.
     *
     * @param records good records read (and handed over) before {@link #goodBytes}
     * @param goodBytes the offset just past the last good record: where appending may go on
     * @param fileBytes the file's size
     * @param corruptAt the offset of a bad record that good records follow, or -1
     * @param problem what was wrong at {@code goodBytes}, or null if the file ends cleanly
     */
    public record Outcome(
            long records, long goodBytes, long fileBytes, long corruptAt, String problem) {
        /** Bytes past the last good record: a torn tail, or everything after a corrupt record. */
        public long droppedBytes() {
            return fileBytes - goodBytes;
        }
    }

    private WalReader() {}

    /** Reads all of {@code file}, giving each good record, in order, to {@code sink}. */
    public static Outcome read(WalFile file, Consumer<WalRecord> sink) throws IOException {
        long fileSize = file.size();
        ByteBuffer buffer =
                ByteBuffer.allocate(
                        (int) Math.min(CHUNK, Math.max(WalRecord.HEADER_BYTES, fileSize)));
        buffer.limit(0);
        long offset = 0; // file offset of buffer.position()
        long records = 0;
        while (true) {
            WalRecord.Decoded decoded = WalRecord.decode(buffer);
            switch (decoded) {
                case WalRecord.Good good -> {
                    sink.accept(good.record());
                    records++;
                    buffer.position(buffer.position() + good.size());
                    offset += good.size();
                }
                case WalRecord.Partial partial -> {
                    long fileLeft = fileSize - offset;
                    if (fileLeft < partial.needed()) {
                        String problem =
                                fileLeft == 0
                                        ? null
                                        : "a record cut short: "
                                                + Words.count(fileLeft, "byte")
                                                + " where "
                                                + partial.needed()
                                                + " were needed";
                        return finish(file, records, offset, fileSize, problem);
                    }
                    buffer = refill(file, buffer, offset, partial.needed());
                }
                case WalRecord.Bad bad -> {
                    return finish(file, records, offset, fileSize, bad.reason());
                }
            }
        }
    }

    private static Outcome finish(
            WalFile file, long records, long goodBytes, long fileSize, String problem)
            throws IOException {
        long corruptAt =
                problem != null && goodRecordAfter(file, goodBytes + 1, fileSize) ? goodBytes : -1;
        return new Outcome(records, goodBytes, fileSize, corruptAt, problem);
    }

    /** Moves the unread bytes to the front and reads more, so at least {@code needed} are there. */
    private static ByteBuffer refill(WalFile file, ByteBuffer buffer, long offset, int needed)
            throws IOException {
        ByteBuffer target = buffer;
        if (needed > buffer.capacity()) {
            target = ByteBuffer.allocate(Math.max(needed, CHUNK));
            target.put(buffer);
        } else {
            buffer.compact();
        }
        long readAt = offset + target.position();
        while (target.hasRemaining()) {
            int n = file.read(target, readAt);
            if (n < 0) {
                break;
            }
            readAt += n;
        }
        target.flip();
        if (target.remaining() < needed) {
            throw new IOException(
                    "the log shrank while it was read: "
                            + readAt
                            + " bytes, "
                            + needed
                            + " needed at "
                            + offset);
        }
        return target;
    }

    /** True if some offset in {@code [from, fileSize)} starts a record that checks out. */
    private static boolean goodRecordAfter(WalFile file, long from, long fileSize)
            throws IOException {
        ByteBuffer window = ByteBuffer.allocate(0);
        long windowStart = from;
        for (long at = from; at + WalRecord.HEADER_BYTES < fileSize; at++) {
            if (at < windowStart || at + WalRecord.HEADER_BYTES > windowStart + window.limit()) {
                window = load(file, window, at, CHUNK);
                windowStart = at;
            }
            int rel = (int) (at - windowStart);
            int body = window.getInt(rel);
            if (body < 1
                    || body > WalRecord.MAX_BODY_BYTES
                    || at + WalRecord.HEADER_BYTES + body > fileSize) {
                continue; // cheap rejection first: most garbage fails on its length
            }
            if (rel + WalRecord.HEADER_BYTES + body > window.limit()) {
                window = load(file, window, at, WalRecord.HEADER_BYTES + body);
                windowStart = at;
                rel = 0;
            }
            if (WalRecord.decode(window.duplicate().position(rel)) instanceof WalRecord.Good) {
                return true;
            }
        }
        return false;
    }

    /**
     * Fills a buffer of at least {@code size} bytes (fewer at the end of the file) from {@code at}.
     */
    private static ByteBuffer load(WalFile file, ByteBuffer window, long at, int size)
            throws IOException {
        ByteBuffer target = size > window.capacity() ? ByteBuffer.allocate(size) : window;
        target.clear();
        long readAt = at;
        while (target.hasRemaining()) {
            int n = file.read(target, readAt);
            if (n < 0) {
                break;
            }
            readAt += n;
        }
        target.flip();
        return target;
    }
}
