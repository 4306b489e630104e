package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.LogPosition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One atomic change to the set of tables (docs/formats.md): tables added at a level, tables
 * removed, and the counters a restart needs. A manifest is a sequence of these, each in one
 * CRC-framed record, so an edit is in effect entirely or not at all.
 *
 * @param added tables added, each at its level
 * @param removed tables removed, by level and number
 * @param logNumber the oldest log still needed (older ones are in tables), or -1 for no change
 * @param nextFile the next file number to hand out, or -1
 * @param lastSeq the largest sequence number in any table, or -1
 * @param clearSeq the sequence number of the last clear: older cells are gone, or -1
 * @param applied the position in the caller's log that the tables now hold every write up to (a
 *     store without a log of its own, {@link LsmOptions#ownLog}), or null for no change
 */
record ManifestEdit(
        List<Added> added,
        List<Removed> removed,
        long logNumber,
        long nextFile,
        long lastSeq,
        long clearSeq,
        LogPosition applied) {

    /** A table added at {@code level}. */
    record Added(int level, TableMeta meta) {}

    /** A table removed from {@code level}. */
    record Removed(int level, long number) {}

    static final int ADD = 1;
    static final int REMOVE = 2;
    static final int LOG_NUMBER = 3;
    static final int NEXT_FILE = 4;
    static final int LAST_SEQ = 5;
    static final int CLEAR_SEQ = 6;
    static final int APPLIED = 7;
    static final int FORMAT = 8;

    /**
     * The manifest format this code writes and reads: 1 had tags 1-6; 2 adds {@link #APPLIED}. An
     * edit that needs 2 says so first ({@link #FORMAT}), so that a reader that knows only 1 stops
     * at an unknown tag and a newer format is refused by number.
     */
    static final int FORMAT_VERSION = 2;

    ManifestEdit {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
    }

    /** An edit without a position (format 1's fields). */
    ManifestEdit(
            List<Added> added,
            List<Removed> removed,
            long logNumber,
            long nextFile,
            long lastSeq,
            long clearSeq) {
        this(added, removed, logNumber, nextFile, lastSeq, clearSeq, null);
    }

    /** The body's fields: each a u8 tag and the tag's values (big-endian). */
    byte[] encode() {
        int size = 0;
        for (Added a : added) {
            size += 1 + 1 + 8 + 8 + 4 + a.meta.smallest().length() + 4 + a.meta.largest().length();
        }
        size += removed.size() * (1 + 1 + 8) + 4 * (1 + 8) + (1 + 1) + (1 + 8 + 8);
        ByteBuffer out = ByteBuffer.allocate(size);
        if (applied != null) {
            out.put((byte) FORMAT).put((byte) FORMAT_VERSION);
        }
        for (Added a : added) {
            out.put((byte) ADD).put((byte) a.level).putLong(a.meta.number());
            out.putLong(a.meta.bytes());
            out.putInt(a.meta.smallest().length()).put(a.meta.smallest().getArray());
            out.putInt(a.meta.largest().length()).put(a.meta.largest().getArray());
        }
        for (Removed r : removed) {
            out.put((byte) REMOVE).put((byte) r.level).putLong(r.number);
        }
        putIf(out, LOG_NUMBER, logNumber);
        putIf(out, NEXT_FILE, nextFile);
        putIf(out, LAST_SEQ, lastSeq);
        putIf(out, CLEAR_SEQ, clearSeq);
        if (applied != null) {
            out.put((byte) APPLIED).putLong(applied.term()).putLong(applied.index());
        }
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    private static void putIf(ByteBuffer out, int tag, long value) {
        if (value >= 0) {
            out.put((byte) tag).putLong(value);
        }
    }

    /**
     * Parses a body; tables added are known by number, range and size only (the rest of {@link
     * TableMeta} is read from the table's footer at open).
     *
     * @throws IllegalArgumentException if the body is malformed
     */
    static ManifestEdit decode(ByteBuffer in) {
        List<Added> added = new ArrayList<>();
        List<Removed> removed = new ArrayList<>();
        long log = -1;
        long next = -1;
        long seq = -1;
        long clear = -1;
        LogPosition applied = null;
        try {
            while (in.hasRemaining()) {
                int tag = in.get();
                switch (tag) {
                    case ADD -> {
                        int level = in.get();
                        long number = in.getLong();
                        long bytes = in.getLong();
                        ByteArrayWrapper smallest = field(in);
                        ByteArrayWrapper largest = field(in);
                        added.add(
                                new Added(
                                        level,
                                        new TableMeta(number, bytes, smallest, largest, 0, 0, 0)));
                    }
                    case REMOVE -> removed.add(new Removed(in.get(), in.getLong()));
                    case LOG_NUMBER -> log = in.getLong();
                    case NEXT_FILE -> next = in.getLong();
                    case LAST_SEQ -> seq = in.getLong();
                    case CLEAR_SEQ -> clear = in.getLong();
                    case APPLIED -> applied = applied(in.getLong(), in.getLong());
                    case FORMAT -> {
                        int format = in.get() & 0xFF;
                        if (format > FORMAT_VERSION) {
                            throw new IllegalArgumentException(
                                    "manifest format "
                                            + format
                                            + ": written by a newer dbf0, this one reads up to "
                                            + FORMAT_VERSION);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown field tag " + tag);
                }
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a field runs past the record", e);
        }
        return new ManifestEdit(added, removed, log, next, seq, clear, applied);
    }

    private static LogPosition applied(long term, long index) {
        if (term < 0 || index < 0) {
            throw new IllegalArgumentException("a position of term " + term + ", index " + index);
        }
        return new LogPosition(term, index);
    }

    private static ByteArrayWrapper field(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("a key of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new ByteArrayWrapper(bytes);
    }
}
