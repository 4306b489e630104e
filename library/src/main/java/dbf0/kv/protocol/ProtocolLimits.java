package dbf0.kv.protocol;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The largest key, value, frame and batch a protocol v2 peer accepts, and refuses to send.
 *
 * <p>v2's lengths are four-byte numbers: a peer could announce a 4 GiB value in four bytes. A
 * reader therefore checks every length against these limits (and against the bytes actually
 * present) before it allocates anything; a writer checks them before it writes anything, so that a
 * request its own side would reject never reaches the wire.
 *
 * <ul>
 *   <li>{@code maxFrameBytes}: the largest frame body (the number in the frame's length header). A
 *       frame above it is fatal: see {@link V2Codec}.
 *   <li>{@code maxKeyBytes}, {@code maxValueBytes}: per field, in every request and response.
 *   <li>{@code maxBatchOps}: the most operations (or replies) in one batch.
 * </ul>
 *
 * <p>Every limit is positive, and a frame must be able to hold a SET of the largest key and the
 * largest value; otherwise a client could never store a value the limits allow.
 *
 * @param maxKeyBytes the largest key, in bytes
 * @param maxValueBytes the largest value, in bytes
 * @param maxFrameBytes the largest frame body, in bytes (the 4-byte length header not counted)
 * @param maxBatchOps the most operations in one batch request, and replies in one batch response
 */
public record ProtocolLimits(
        int maxKeyBytes, int maxValueBytes, int maxFrameBytes, int maxBatchOps) {

    /** What a SET body holds besides its key and value: the type byte and two 4-byte lengths. */
    static final int SET_OVERHEAD = 1 + 4 + 4;

    /**
     * The largest {@code maxFrameBytes}: header and body together must fit in one Java array, and
     * the JDK's arrays stop a few bytes short of {@link Integer#MAX_VALUE}.
     */
    public static final int MAX_FRAME_CEILING = Integer.MAX_VALUE - 8 - V2Codec.HEADER_BYTES;

    /** 64 KiB keys, 1 MiB values, 16 MiB frames, 100,000 operations per batch. */
    public static final ProtocolLimits DEFAULTS =
            new ProtocolLimits(64 * 1024, 1024 * 1024, 16 * 1024 * 1024, 100_000);

    /** Validates the limits; see the class comment. */
    public ProtocolLimits {
        requirePositive("maxKeyBytes", maxKeyBytes);
        requirePositive("maxValueBytes", maxValueBytes);
        requirePositive("maxFrameBytes", maxFrameBytes);
        requirePositive("maxBatchOps", maxBatchOps);
        checkArgument(
                maxFrameBytes <= MAX_FRAME_CEILING,
                "maxFrameBytes must be at most %s (one Java array), got %s",
                MAX_FRAME_CEILING,
                maxFrameBytes);
        long largestSet = (long) maxKeyBytes + maxValueBytes + SET_OVERHEAD;
        checkArgument(
                maxFrameBytes >= largestSet,
                "maxFrameBytes %s cannot hold a SET of a %s-byte key and a %s-byte value, which"
                        + " takes %s bytes",
                maxFrameBytes,
                maxKeyBytes,
                maxValueBytes,
                largestSet);
    }

    private static void requirePositive(String name, int limit) {
        checkArgument(limit > 0, "%s must be positive, got %s", name, limit);
    }
}
