package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;

/**
 * With {@code --history} on a keyed workload: makes every value a load thread writes one that no
 * other write of the run writes, by stamping the thread's id and a sequence number over the value's
 * first eight bytes. A keyed workload's values are derived from their keys, so without this every
 * write of a record writes the same bytes, and a stale read could not be told from a fresh one: the
 * history would check linearizable whatever the store did.
 *
 * <p>Values shorter than eight bytes keep the tag's low bytes, so they still differ within a thread
 * (up to 256^length writes); empty values cannot differ at all.
 */
final class WriteTags {

    private final int sourceId;
    private int sequence;

    /** {@code sourceId}: distinct for every load thread of a run. */
    WriteTags(int sourceId) {
        this.sourceId = sourceId;
    }

    /**
     * Stamps the next tag over {@code value}'s array, which must be the caller's own, and returns
     * it.
     */
    ByteArrayWrapper stamp(ByteArrayWrapper value) {
        long tag = ((long) sourceId << 32) | (sequence++ & 0xffffffffL);
        byte[] bytes = value.getArray();
        int n = Math.min(8, bytes.length);
        for (int b = 0; b < n; b++) {
            bytes[b] = (byte) (tag >>> (8 * (n - 1 - b)));
        }
        return value;
    }
}
