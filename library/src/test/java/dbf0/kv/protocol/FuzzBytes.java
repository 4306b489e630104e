package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Shared by the fuzz tests: byte-level mutations of valid encodings, and a per-thread allocation
 * meter. Mutations are values (not random calls inside the test) so jqwik can shrink a failing
 * input to a small list of edits of a small valid frame.
 */
public final class FuzzBytes {

    private FuzzBytes() {}

    /** What to do to the input; {@code at} and {@code value} are reduced modulo what fits. */
    public enum Kind {
        FLIP_BIT,
        SET_BYTE,
        INSERT_BYTE,
        DELETE_BYTE,
        TRUNCATE,
        SET_U32,
        SET_BYTE_EXTREME
    }

    /**
     * One edit. SET_U32 writes {@code value} big-endian at {@code at} (length fields are u32s in
     * v2); SET_BYTE_EXTREME writes the low byte of {@code value} (v1's one-byte prefixes).
     */
    public record Mutation(Kind kind, int at, int value) {}

    /** Edits whose int values favour {@code extremes} (lengths at and around the limits). */
    public static Arbitrary<Mutation> mutations(int... extremes) {
        Arbitrary<Integer> extreme = Arbitraries.of(Arrays.stream(extremes).boxed().toList());
        // Two parts extremes to one part any int: the edges are where length checks go wrong.
        Arbitrary<Integer> values = Arbitraries.oneOf(extreme, extreme, Arbitraries.integers());
        return Combinators.combine(
                        Arbitraries.of(Kind.class),
                        Arbitraries.integers().between(0, 1 << 16),
                        values)
                .as(Mutation::new);
    }

    /** The input with every edit applied in order (a fresh array; the input is not touched). */
    public static byte[] apply(byte[] input, List<Mutation> edits) {
        byte[] bytes = input.clone();
        for (Mutation edit : edits) {
            bytes = apply(bytes, edit);
        }
        return bytes;
    }

    private static byte[] apply(byte[] bytes, Mutation edit) {
        int n = bytes.length;
        int at = n == 0 ? 0 : edit.at() % n;
        switch (edit.kind()) {
            case FLIP_BIT -> {
                if (n > 0) {
                    bytes[at] ^= (byte) (1 << (edit.value() & 7));
                }
            }
            case SET_BYTE, SET_BYTE_EXTREME -> {
                if (n > 0) {
                    bytes[at] = (byte) edit.value();
                }
            }
            case INSERT_BYTE -> {
                int where = edit.at() % (n + 1);
                byte[] longer = new byte[n + 1];
                System.arraycopy(bytes, 0, longer, 0, where);
                longer[where] = (byte) edit.value();
                System.arraycopy(bytes, where, longer, where + 1, n - where);
                return longer;
            }
            case DELETE_BYTE -> {
                if (n > 0) {
                    byte[] shorter = new byte[n - 1];
                    System.arraycopy(bytes, 0, shorter, 0, at);
                    System.arraycopy(bytes, at + 1, shorter, at, n - at - 1);
                    return shorter;
                }
            }
            case TRUNCATE -> {
                return Arrays.copyOf(bytes, edit.at() % (n + 1));
            }
            case SET_U32 -> {
                // Aligning to where a length field can start is pointless: any offset may be one
                // after an edit.
                for (int i = 0; i < 4 && at + i < n; i++) {
                    bytes[at + i] = (byte) (edit.value() >>> (24 - 8 * i));
                }
            }
        }
        return bytes;
    }

    /** Concatenates frames, so one input holds several requests back to back. */
    public static byte[] concat(List<byte[]> parts) {
        int total = 0;
        for (byte[] part : parts) {
            total += part.length;
        }
        byte[] all = new byte[total];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /**
     * Chunk sizes summing to {@code total}: the ways a socket may deliver the bytes. Sizes are
     * drawn small (1-byte reads included) so frame boundaries fall inside chunks as well as between
     * them.
     */
    public static int[] chunks(int total, List<Integer> sizes) {
        int[] out = new int[total + 1];
        int count = 0;
        int left = total;
        int i = 0;
        while (left > 0) {
            int size =
                    sizes.isEmpty()
                            ? left
                            : Math.max(1, Math.min(left, sizes.get(i++ % sizes.size())));
            out[count++] = size;
            left -= size;
        }
        return Arrays.copyOf(out, count);
    }

    /** Bytes the current thread allocated so far (HotSpot's per-thread TLAB counter). */
    public static long allocatedBytes() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (bean instanceof com.sun.management.ThreadMXBean hotspot
                && hotspot.isThreadAllocatedMemorySupported()) {
            return hotspot.getCurrentThreadAllocatedBytes();
        }
        return fail("this JVM cannot count a thread's allocated bytes");
    }

    /** Something the decoder should never throw; anything else is a finding. */
    public static void failUnexpected(Throwable t, byte[] input) {
        throw new AssertionError(
                "undocumented "
                        + t.getClass().getName()
                        + " for input "
                        + java.util.HexFormat.of().formatHex(input),
                t);
    }
}
