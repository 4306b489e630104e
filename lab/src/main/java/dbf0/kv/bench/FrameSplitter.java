package dbf0.kv.bench;

/**
 * How a sharded connector turns drawn operations into one part per server: each operation goes
 * straight into the {@link FramePart} of the server its key is placed on, in the frame's order, so
 * each part keeps the frame's relative order. The frame is the one {@link FrameSource#encodeNext}
 * would make (the same operations, a BATCH exactly when it would be one); split, each server's part
 * is that frame with only its own operations.
 */
final class FrameSplitter {

    /** Where a key goes: a server's number, 0 to the number of parts - 1. */
    interface Placer {
        /**
         * The server of a key.
         *
         * @param key the key's bytes, not to be kept
         * @return the server's number
         */
        int place(byte[] key);
    }

    private FrameSplitter() {}

    /**
     * Draws the next frame's operations from {@code frames} into {@code parts}, which must be
     * cleared. An operation never straddles frames, and a read-modify-write's two parts go to one
     * server, since they share a key. The parts are not finished ({@link FramePart#finish}).
     *
     * @return how many requests the frame holds
     */
    static int next(FrameSource frames, int batchSize, FramePart[] parts, Placer placer) {
        DrawnOp op = frames.peek();
        boolean batch = batchSize > 1 || op.parts > 1;
        int count = 0;
        while (true) {
            int n = op.parts;
            for (int i = 0; i < n; i++) {
                parts[placer.place(op.keys[i].getArray())].add(op, i, batch);
            }
            count += n;
            frames.take();
            if (count >= batchSize) {
                return count;
            }
            op = frames.peek();
            if (count + op.parts > batchSize) {
                return count;
            }
        }
    }

    /**
     * Splits a part again, by a new placement, into {@code into}: each operation copied as it was
     * sent, in order, with its kind. For a part answered MOVED, so rare: it copies each key to
     * place it.
     */
    static void resplit(FramePart from, FramePart[] into, Placer placer) {
        int offset = from.firstOp();
        for (int i = 0; i < from.count(); i++) {
            int length = from.opLength(offset);
            into[placer.place(from.key(offset))].add(
                    from, offset, length, from.kinds()[i], from.batch());
            offset += length;
        }
    }
}
