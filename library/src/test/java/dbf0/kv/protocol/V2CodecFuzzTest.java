package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Fuzzes protocol v2's decoders (buffer and stream, requests and responses) with valid frames,
 * mutated frames and random bytes. Tries come from {@code jqwik.tries.default}
 * (src/test/resources/junit-platform.properties); see docs/testing.md for a longer run.
 *
 * <p>Small limits, so that "just over the limit" is a few bytes away from any valid frame; a full
 * batch of the largest operations still fits in a frame, so every generated value encodes.
 */
public class V2CodecFuzzTest {

    static final ProtocolLimits LIMITS = new ProtocolLimits(32, 128, 4096, 16);

    /** Lengths and counts at the edges: what SET_U32 edits write into the frame. */
    static final int[] EXTREMES = {
        0,
        1,
        -1,
        0x7fffffff,
        0x80000000,
        0xffffffff,
        LIMITS.maxKeyBytes() - 1,
        LIMITS.maxKeyBytes(),
        LIMITS.maxKeyBytes() + 1,
        LIMITS.maxValueBytes() - 1,
        LIMITS.maxValueBytes(),
        LIMITS.maxValueBytes() + 1,
        LIMITS.maxFrameBytes() - 1,
        LIMITS.maxFrameBytes(),
        LIMITS.maxFrameBytes() + 1,
        LIMITS.maxBatchOps() - 1,
        LIMITS.maxBatchOps(),
        LIMITS.maxBatchOps() + 1
    };

    // ---------------------------------------------------------------------------------------------
    // Generators

    static Arbitrary<ByteArrayWrapper> bytes(int maxSize) {
        return Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(maxSize)
                .map(ByteArrayWrapper::new);
    }

    static Arbitrary<Request> operations(ProtocolLimits limits) {
        Arbitrary<ByteArrayWrapper> keys = bytes(limits.maxKeyBytes());
        Arbitrary<ByteArrayWrapper> values = bytes(limits.maxValueBytes());
        return Arbitraries.oneOf(
                keys.map(Request.Get::new),
                Combinators.combine(keys, values).as(Request.Set::new),
                keys.map(Request.Delete::new));
    }

    /** Any valid request under {@code limits}, batches included. */
    public static Arbitrary<Request> requests(ProtocolLimits limits) {
        Arbitrary<Request> ops = operations(limits);
        return Arbitraries.oneOf(
                ops,
                ops,
                Arbitraries.just(new Request.Ping()),
                ops.list().ofMaxSize(limits.maxBatchOps()).map(Request.Batch::new));
    }

    static Arbitrary<Response> replies() {
        // Below the surrogates, so every message survives UTF-8 unchanged.
        Arbitrary<String> messages =
                Arbitraries.strings().withCharRange(' ', '\uD7FF').ofMaxLength(40);
        return Arbitraries.oneOf(
                bytes(LIMITS.maxValueBytes()).map(Response.Value::new),
                Arbitraries.just(new Response.NotFound()),
                Arbitraries.just(new Response.Ok()),
                messages.map(Response.Error::new));
    }

    @Provide
    Arbitrary<Request> requests() {
        return requests(LIMITS);
    }

    @Provide
    Arbitrary<Response> responses() {
        Arbitrary<Response> replies = replies();
        return Arbitraries.oneOf(
                replies,
                replies,
                replies.list().ofMaxSize(LIMITS.maxBatchOps()).map(Response.Batch::new));
    }

    /** 1 to 3 valid request frames back to back, then 1 to 4 edits; or plain random bytes. */
    @Provide
    Arbitrary<byte[]> requestStreams() {
        return streams(requests().map(r -> V2Codec.encode(r, LIMITS)));
    }

    @Provide
    Arbitrary<byte[]> responseStreams() {
        return streams(responses().map(r -> V2Codec.encode(r, LIMITS)));
    }

    static Arbitrary<byte[]> streams(Arbitrary<byte[]> frames) {
        Arbitrary<byte[]> valid = frames.list().ofMinSize(1).ofMaxSize(3).map(FuzzBytes::concat);
        Arbitrary<byte[]> mutated =
                Combinators.combine(
                                valid,
                                FuzzBytes.mutations(EXTREMES).list().ofMinSize(1).ofMaxSize(4))
                        .as(FuzzBytes::apply);
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        return Arbitraries.oneOf(mutated, mutated, mutated, random);
    }

    // ---------------------------------------------------------------------------------------------
    // Invariant 3: decode(encode(x)) == x, from a buffer (at any offset, in either byte order) and
    // from a stream; and every strict prefix of a frame is Incomplete, consuming nothing.

    @Property
    void requestsRoundTrip(
            @ForAll("requests") Request request,
            @ForAll @IntRange(max = 7) int offset,
            @ForAll boolean littleEndian)
            throws IOException {
        byte[] frame = V2Codec.encode(request, LIMITS);
        assertThat(frame).hasSize(V2Codec.encodedSize(request));
        ByteBuffer into = ByteBuffer.allocate(frame.length);
        V2Codec.encode(request, into, LIMITS);
        assertThat(into.array()).isEqualTo(frame);

        ByteBuffer in = placed(frame, offset, littleEndian);
        assertThat(V2Codec.decodeRequest(in, LIMITS)).isEqualTo(new DecodeResult.Frame<>(request));
        assertThat(in.position()).isEqualTo(offset + frame.length);
        assertThat(V2Codec.readRequest(new ByteArrayInputStream(frame), LIMITS))
                .isEqualTo(new DecodeResult.Frame<>(request));
        assertPrefixesIncomplete(frame, V2Codec::decodeRequest);
    }

    @Property
    void responsesRoundTrip(
            @ForAll("responses") Response response,
            @ForAll @IntRange(max = 7) int offset,
            @ForAll boolean littleEndian)
            throws IOException {
        byte[] frame = V2Codec.encode(response, LIMITS);
        assertThat(frame).hasSize(V2Codec.encodedSize(response));
        ByteBuffer in = placed(frame, offset, littleEndian);
        assertThat(V2Codec.decodeResponse(in, LIMITS))
                .isEqualTo(new DecodeResult.Frame<>(response));
        assertThat(in.position()).isEqualTo(offset + frame.length);
        assertThat(V2Codec.readResponse(new ByteArrayInputStream(frame), LIMITS))
                .isEqualTo(new DecodeResult.Frame<>(response));
        assertPrefixesIncomplete(frame, V2Codec::decodeResponse);
    }

    /**
     * The frame at {@code offset} in a buffer with junk around it, so absolute indexes would show.
     */
    private static ByteBuffer placed(byte[] frame, int offset, boolean littleEndian) {
        byte[] room = new byte[offset + frame.length + 3];
        Arrays.fill(room, (byte) 0x7f);
        System.arraycopy(frame, 0, room, offset, frame.length);
        ByteBuffer in = ByteBuffer.wrap(room, offset, frame.length);
        return in.order(littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    }

    private static <T> void assertPrefixesIncomplete(byte[] frame, Decoder<T> decoder)
            throws ProtocolException {
        for (int cut = 0; cut < frame.length; cut++) {
            ByteBuffer prefix = ByteBuffer.wrap(frame, 0, cut);
            int needed = cut < V2Codec.HEADER_BYTES ? V2Codec.HEADER_BYTES : frame.length;
            assertThat(decoder.decode(prefix, LIMITS))
                    .isEqualTo(new DecodeResult.Incomplete<>(needed));
            assertThat(prefix.position()).isZero();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Invariants 1 and 2 on hostile input: only ProtocolException escapes, nothing is consumed
    // unless a whole frame was, results stay within the limits, and the stream decoder agrees.

    @Property
    void mutatedRequestStreamsDecodeSafely(@ForAll("requestStreams") byte[] input) {
        List<Object> fromBuffer = decodeAll(input, V2Codec::decodeRequest);
        assertThat(readAll(input, V2Codec::readRequest)).isEqualTo(fromBuffer);
    }

    @Property
    void mutatedResponseStreamsDecodeSafely(@ForAll("responseStreams") byte[] input) {
        List<Object> fromBuffer = decodeAll(input, V2Codec::decodeResponse);
        assertThat(readAll(input, V2Codec::readResponse)).isEqualTo(fromBuffer);
    }

    /**
     * Invariant 4 at the decoder: a prefix of the input decodes to a prefix of the same results.
     */
    @Property
    void aPrefixNeverDisagreesWithTheWhole(
            @ForAll("requestStreams") byte[] input, @ForAll @IntRange(max = 1 << 16) int cut) {
        List<Object> whole = decodeAll(input, V2Codec::decodeRequest);
        List<Object> partial =
                decodeAll(Arrays.copyOf(input, cut % (input.length + 1)), V2Codec::decodeRequest);
        Object last = partial.getLast();
        List<Object> settled = partial.subList(0, partial.size() - 1);
        assertThat(whole.subList(0, settled.size())).isEqualTo(settled);
        if (last == FATAL) {
            // Refusing a header is final: more bytes must not change the verdict.
            assertThat(whole.get(settled.size())).isEqualTo(FATAL);
        }
    }

    /** Marks the results lists: the decoder threw ProtocolException here. */
    public static final String FATAL = "fatal";

    /** ... or asked for more bytes. */
    public static final String INCOMPLETE = "incomplete";

    @FunctionalInterface
    interface Decoder<T> {
        DecodeResult<T> decode(ByteBuffer in, ProtocolLimits limits) throws ProtocolException;
    }

    @FunctionalInterface
    interface StreamReader<T> {
        DecodeResult.Complete<T> read(InputStream in, ProtocolLimits limits) throws IOException;
    }

    /** Decodes frames until Incomplete or fatal, checking invariants 1 and 2 after each call. */
    static <T> List<Object> decodeAll(byte[] input, Decoder<T> decoder) {
        ByteBuffer in = ByteBuffer.wrap(input);
        List<Object> results = new ArrayList<>();
        while (true) {
            int start = in.position();
            DecodeResult<T> result;
            try {
                result = decoder.decode(in, LIMITS);
            } catch (ProtocolException fatal) {
                assertThat(in.position()).as("a fatal header consumes nothing").isEqualTo(start);
                results.add(FATAL);
                return results;
            } catch (RuntimeException | Error e) {
                FuzzBytes.failUnexpected(e, input);
                return results;
            }
            switch (result) {
                case DecodeResult.Incomplete<T>(int needed) -> {
                    assertThat(in.position()).as("Incomplete consumes nothing").isEqualTo(start);
                    assertThat(needed)
                            .as("needed bytes")
                            .isGreaterThan(in.remaining())
                            .isLessThanOrEqualTo(V2Codec.HEADER_BYTES + LIMITS.maxFrameBytes());
                    results.add(INCOMPLETE);
                    return results;
                }
                case DecodeResult.Frame<T>(T value) -> {
                    // v2 has one encoding per value, so the bytes consumed are exactly its
                    // re-encoding; except an ERROR's message, whose malformed UTF-8 is decoded to
                    // U+FFFD on purpose.
                    byte[] consumed = Arrays.copyOfRange(input, start, in.position());
                    if (hasError(value)) {
                        assertThat(decodeOne(reencode(value), decoder)).isEqualTo(value);
                    } else {
                        assertThat(reencode(value)).isEqualTo(consumed);
                    }
                    results.add(value);
                }
                case DecodeResult.Invalid<T> invalid -> {
                    int announced = ByteBuffer.wrap(input, start, V2Codec.HEADER_BYTES).getInt();
                    assertThat(in.position() - start)
                            .as("an Invalid frame is consumed whole")
                            .isEqualTo(V2Codec.HEADER_BYTES + announced);
                    results.add(invalid);
                }
            }
        }
    }

    private static boolean hasError(Object value) {
        return value instanceof Response.Error
                || (value instanceof Response.Batch batch
                        && batch.replies().stream().anyMatch(r -> r instanceof Response.Error));
    }

    private static <T> T decodeOne(byte[] frame, Decoder<T> decoder) {
        try {
            return ((DecodeResult.Frame<T>) decoder.decode(ByteBuffer.wrap(frame), LIMITS)).value();
        } catch (ProtocolException e) {
            throw new AssertionError(e);
        }
    }

    /** Re-encoding with the limits also checks that the decoded value is within them. */
    private static byte[] reencode(Object value) {
        return switch (value) {
            case Request request -> V2Codec.encode(request, LIMITS);
            case Response response -> V2Codec.encode(response, LIMITS);
            default -> throw new AssertionError(value);
        };
    }

    /** The same input through the blocking decoder, mapped onto decodeAll's vocabulary. */
    static <T> List<Object> readAll(byte[] input, StreamReader<T> reader) {
        ByteArrayInputStream in = new ByteArrayInputStream(input);
        List<Object> results = new ArrayList<>();
        while (true) {
            try {
                switch (reader.read(in, LIMITS)) {
                    case DecodeResult.Frame<T>(T value) -> results.add(value);
                    case DecodeResult.Invalid<T> invalid -> results.add(invalid);
                }
            } catch (ProtocolException fatal) {
                results.add(FATAL);
                return results;
            } catch (EOFException end) {
                results.add(INCOMPLETE);
                return results;
            } catch (IOException | RuntimeException | Error e) {
                FuzzBytes.failUnexpected(e, input);
                return results;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Invariant 2, measured: nothing proportional to an announced length is allocated before the
    // bytes are there. Uses the default limits (16 MiB frames), where a slip would show.

    private static final ProtocolLimits DEFAULTS = ProtocolLimits.DEFAULTS;
    private static final long SMALL = 64 * 1024;

    /**
     * The meter itself: if it could not see a 1 MiB array, the "allocates little" checks would
     * prove nothing.
     */
    @Example
    void theAllocationMeterSeesAnArray() {
        assertThat(allocatedBy(() -> new byte[1 << 20])).isGreaterThanOrEqualTo(1 << 20);
    }

    @Example
    void aHeaderAnnouncingSixteenMebibytesAllocatesNothingLikeIt() throws ProtocolException {
        byte[] frame = {0x01, 0x00, 0x00, 0x00, 'S', 0x00}; // 16 MiB body announced, 2 bytes sent
        assertThat(allocatedByDecode(frame)).isLessThan(SMALL);
        assertThat(V2Codec.decodeRequest(ByteBuffer.wrap(frame), DEFAULTS))
                .isEqualTo(new DecodeResult.Incomplete<>(V2Codec.HEADER_BYTES + (16 << 20)));
    }

    @Property(tries = 200)
    void anyAnnouncedFrameLengthAllocatesLittle(
            @ForAll @IntRange(max = 16 << 20) int announced, @ForAll @IntRange(max = 16) int sent)
            throws ProtocolException {
        byte[] frame =
                ByteBuffer.allocate(V2Codec.HEADER_BYTES + Math.min(sent, announced))
                        .putInt(announced)
                        .array();
        if (announced <= sent) {
            return; // complete frames allocate their (small) contents: nothing to measure here
        }
        assertThat(allocatedByDecode(frame)).isLessThan(SMALL);
    }

    @Example
    void hugeFieldLengthsAndCountsInsideSmallFramesAllocateLittle() throws ProtocolException {
        byte[] hugeKey = {0, 0, 0, 5, 'G', 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        byte[] hugeCount = {
            0, 0, 0, 10, 'B', 0x00, 0x01, (byte) 0x86, (byte) 0xa0, 'G', 0, 0, 0, 0
        }; // 100,000 ops
        byte[] hugeReplyCount = {0, 0, 0, 5, 'B', 0x00, 0x01, (byte) 0x86, (byte) 0xa0};
        assertThat(V2Codec.decodeRequest(ByteBuffer.wrap(hugeKey), DEFAULTS))
                .isInstanceOf(DecodeResult.Invalid.class);
        assertThat(V2Codec.decodeRequest(ByteBuffer.wrap(hugeCount), DEFAULTS))
                .isInstanceOf(DecodeResult.Invalid.class);
        assertThat(V2Codec.decodeResponse(ByteBuffer.wrap(hugeReplyCount), DEFAULTS))
                .isInstanceOf(DecodeResult.Invalid.class);
        assertThat(allocatedByDecode(hugeKey)).isLessThan(SMALL);
        assertThat(allocatedByDecode(hugeCount)).isLessThan(SMALL);
        assertThat(
                        allocatedBy(
                                () ->
                                        V2Codec.decodeResponse(
                                                ByteBuffer.wrap(hugeReplyCount), DEFAULTS)))
                .isLessThan(SMALL);
    }

    @Example
    void aStalledStreamHoldsOneChunkNotTheAnnouncedFrame() {
        byte[] stalled = {
            0x01, 0x00, 0x00, 0x00, 'S', 0, 0, 0, 0
        }; // 16 MiB announced, then the stream ends
        assertThatThrownBy(() -> V2Codec.readRequest(new ByteArrayInputStream(stalled), DEFAULTS))
                .isInstanceOf(EOFException.class);
        long allocated =
                allocatedBy(
                        () -> {
                            try {
                                V2Codec.readRequest(new ByteArrayInputStream(stalled), DEFAULTS);
                            } catch (IOException expected) {
                                // the stream ended mid-frame, as intended
                            }
                            return null;
                        });
        assertThat(allocated).isLessThan(4 * SMALL); // one 64 KiB read chunk, not 16 MiB
    }

    @Example
    void lengthHeadersAtAndPastTheLimitAreFatalOnlyPastIt() {
        for (int announced : new int[] {-1, 0x7fffffff, 0x80000000, DEFAULTS.maxFrameBytes() + 1}) {
            byte[] header = ByteBuffer.allocate(4).putInt(announced).array();
            assertThatThrownBy(() -> V2Codec.decodeRequest(ByteBuffer.wrap(header), DEFAULTS))
                    .isInstanceOf(ProtocolException.class);
        }
        byte[] atLimit = ByteBuffer.allocate(4).putInt(DEFAULTS.maxFrameBytes()).array();
        assertThat(assertDecodes(atLimit))
                .isEqualTo(new DecodeResult.Incomplete<>(4 + DEFAULTS.maxFrameBytes()));
        assertThat(assertDecodes(new byte[] {0, 0, 0, 0}))
                .isInstanceOf(DecodeResult.Invalid.class); // empty body
    }

    private static DecodeResult<Request> assertDecodes(byte[] bytes) {
        try {
            return V2Codec.decodeRequest(ByteBuffer.wrap(bytes), DEFAULTS);
        } catch (ProtocolException e) {
            throw new AssertionError(e);
        }
    }

    private static long allocatedByDecode(byte[] frame) {
        return allocatedBy(() -> V2Codec.decodeRequest(ByteBuffer.wrap(frame), DEFAULTS));
    }

    @FunctionalInterface
    public interface Call {
        Object run() throws ProtocolException;
    }

    /** Bytes allocated by one call, after warm-up calls so that class loading is not counted. */
    public static long allocatedBy(Call call) {
        try {
            for (int i = 0; i < 50; i++) {
                call.run();
            }
            long before = FuzzBytes.allocatedBytes();
            call.run();
            return FuzzBytes.allocatedBytes() - before;
        } catch (ProtocolException e) {
            throw new AssertionError(e);
        }
    }
}
