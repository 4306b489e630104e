package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Fields.LENGTH_BYTES;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A v2 batch, in either direction: {@code 'B' | u32 count | count items}. Requests and responses
 * differ only in their items, so the header and the count's checks live here once.
 */
final class V2Batches {

    /** The smallest operation in a batch: a GET or DELETE of the empty key. */
    static final int MIN_OP_BYTES = 1 + LENGTH_BYTES;

    /** The smallest reply in a batch: NOT_FOUND or OK. */
    static final int MIN_REPLY_BYTES = 1;

    private V2Batches() {}

    /** Parses the fields of one batch item whose type byte has been read. */
    interface ItemParser<T> {
        T parse(byte type, ByteBuffer body, ProtocolLimits limits);
    }

    /** The type byte and count of a batch of {@code count} items; checks the limit unless null. */
    static long headerSize(int count, ProtocolLimits limits) {
        if (limits != null && count > limits.maxBatchOps()) {
            throw new IllegalArgumentException(
                    V2Fields.batchOverLimit(count, limits.maxBatchOps()));
        }
        return 1 + LENGTH_BYTES;
    }

    /**
     * A batch's count and items, its type byte already read. The count is checked against the
     * limit, and the list is never sized beyond what the body can hold (every item takes at least
     * {@code minItemBytes}), so a count of four billion costs nothing before it is refused.
     */
    static <T> List<T> parse(
            ByteBuffer body,
            ProtocolLimits limits,
            int minItemBytes,
            String item,
            String items,
            ItemParser<T> parser) {
        int count = V2Fields.u32(body, "batch count");
        if (count < 0 || count > limits.maxBatchOps()) {
            throw new MalformedFrameException(
                    V2Fields.batchOverLimit(Integer.toUnsignedLong(count), limits.maxBatchOps()));
        }
        List<T> parsed = new ArrayList<>(Math.min(count, body.remaining() / minItemBytes));
        for (int i = 0; i < count; i++) {
            if (!body.hasRemaining()) {
                throw new MalformedFrameException(
                        "the frame ends after "
                                + i
                                + " of the batch's "
                                + count
                                + " "
                                + items
                                + " (is the count larger than the "
                                + items
                                + " sent?)");
            }
            try {
                parsed.add(parser.parse(body.get(), body, limits));
            } catch (MalformedFrameException e) {
                throw new MalformedFrameException(
                        "batch " + item + " " + i + ": " + e.getMessage());
            }
        }
        return parsed;
    }
}
