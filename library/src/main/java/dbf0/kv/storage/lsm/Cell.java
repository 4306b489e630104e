package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;

/**
 * One version of a key: what a write left, with the sequence number that orders it against every
 * other write. A delete leaves a tombstone, a cell of its own kind, so that it hides older values
 * in tables below until compaction drops both; no value is ever reserved to mean "deleted".
 *
 * @param seq the write's sequence number: a higher one is newer
 * @param kind a put or a tombstone
 * @param value the value of a put; null for a tombstone
 */
record Cell(long seq, Kind kind, ByteArrayWrapper value) {

    /** What a cell records. The codes are the format's (docs/formats.md). */
    enum Kind {
        PUT(1),
        DELETE(2);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            return switch (code) {
                case 1 -> PUT;
                case 2 -> DELETE;
                default -> throw new IllegalArgumentException("no cell kind " + code);
            };
        }
    }

    static Cell put(long seq, ByteArrayWrapper value) {
        return new Cell(seq, Kind.PUT, value);
    }

    static Cell tombstone(long seq) {
        return new Cell(seq, Kind.DELETE, null);
    }

    boolean isTombstone() {
        return kind == Kind.DELETE;
    }

    /** The value's length, 0 for a tombstone. */
    int valueLength() {
        return value == null ? 0 : value.length();
    }
}
