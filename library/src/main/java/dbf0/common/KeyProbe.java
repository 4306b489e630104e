package dbf0.common;

import java.nio.ByteBuffer;

/**
 * A reusable {@link ByteArrayWrapper} for looking a key up, filled from the bytes a request carries
 * in an input buffer: a GET then costs a copy of the key into an array that already exists, not a
 * new array and a new wrapper per operation.
 *
 * <p>Why it is safe to reuse: a lookup ({@code Map.get}) compares and hashes its argument and keeps
 * no reference to it, so the probe is free again as soon as the lookup returns, long before the
 * next request refills it. It must never be handed to a put: a stored key is an owned copy.
 *
 * <p>Why a wrapper over a scratch array rather than a view into the buffer: it <em>is</em> a {@code
 * ByteArrayWrapper}, so every map compares it exactly as it compares stored keys, whichever side's
 * {@code equals} or {@code compareTo} the map calls. Memory: one array of at most {@value
 * #MAX_REUSED_BYTES} bytes; a longer key gets a fresh wrapper each time.
 */
public final class KeyProbe {

    /** Keys up to this long reuse the probe's array. */
    public static final int MAX_REUSED_BYTES = 256;

    private ByteArrayWrapper probe = new ByteArrayWrapper(new byte[0]);

    /** An empty probe; its array is made at the first key's length. */
    public KeyProbe() {}

    /**
     * The probe holding the {@code length} bytes of {@code in} from index {@code at}; the buffer's
     * position is not moved.
     *
     * @param in the buffer the request was read into
     * @param at the key's first byte
     * @param length the key's length
     * @return a wrapper valid until the next call; for lookups only
     */
    public ByteArrayWrapper of(ByteBuffer in, int at, int length) {
        if (length > MAX_REUSED_BYTES) {
            return new ByteArrayWrapper(copy(in, at, length));
        }
        if (probe.length() != length) {
            probe = new ByteArrayWrapper(new byte[length]); // keys of one length reuse it
        }
        in.get(at, probe.getArray(), 0, length);
        return probe;
    }

    /**
     * A new wrapper over an owned copy of the bytes, for a key that outlives the request.
     *
     * @param in the buffer
     * @param at the first byte
     * @param length how many bytes
     * @return a new wrapper over a new array
     */
    public static ByteArrayWrapper wrapped(ByteBuffer in, int at, int length) {
        return new ByteArrayWrapper(copy(in, at, length));
    }

    /**
     * An owned copy of {@code length} bytes of {@code in} from {@code at}, for what a put keeps.
     *
     * @param in the buffer
     * @param at the first byte
     * @param length how many bytes
     * @return a new array
     */
    public static byte[] copy(ByteBuffer in, int at, int length) {
        byte[] bytes = new byte[length];
        in.get(at, bytes, 0, length);
        return bytes;
    }
}
