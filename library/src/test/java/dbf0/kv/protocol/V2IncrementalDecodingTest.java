package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Decoding as bytes trickle in, the way a non-blocking event loop sees them: every frame split at
 * every byte boundary, fed byte by byte, and many frames back to back (pipelining).
 */
class V2IncrementalDecodingTest {

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    @Test
    void requestsSplitAtEveryByteBoundary() throws ProtocolException {
        for (Request request : V2Samples.requests()) {
            assertSplitsEverywhere(Wire.REQUESTS, request);
        }
    }

    @Test
    void responsesSplitAtEveryByteBoundary() throws ProtocolException {
        for (Response response : V2Samples.responses()) {
            assertSplitsEverywhere(Wire.RESPONSES, response);
        }
    }

    @Test
    void requestsAndResponsesFedByteByByte() throws ProtocolException {
        for (Request request : V2Samples.requests()) {
            assertByteByByte(Wire.REQUESTS, request);
        }
        for (Response response : V2Samples.responses()) {
            assertByteByByte(Wire.RESPONSES, response);
        }
    }

    @Test
    void pipelinedRequestsDecodeInOrderWhateverTheChunking() throws ProtocolException {
        List<Request> requests = new ArrayList<>(V2Samples.requests());
        Random random = new Random(21);
        for (int i = 0; i < 20; i++) {
            requests.add(V2Samples.randomBatch(random, 10, new int[] {0, 1, 7, 200}));
        }
        assertPipelined(Wire.REQUESTS, requests);
    }

    @Test
    void pipelinedResponsesDecodeInOrderWhateverTheChunking() throws ProtocolException {
        List<Response> responses = new ArrayList<>(V2Samples.responses());
        Random random = new Random(22);
        for (int i = 0; i < 20; i++) {
            responses.add(V2Samples.randomBatchReply(random, 10, new int[] {0, 1, 7, 200}));
        }
        assertPipelined(Wire.RESPONSES, responses);
    }

    @Test
    void anInvalidFrameInAPipelineIsReportedInItsPlaceAndTheRestDecode() throws ProtocolException {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(V2Codec.encode(new Request.Get(V2Samples.bytes("a")), LIMITS));
        stream.writeBytes(V2Vectors.hex("00000001 78"));
        stream.writeBytes(V2Codec.encode(new Request.Ping(), LIMITS));
        for (int chunk : new int[] {1, 3, 1000}) {
            Feeder<Request> feeder = new Feeder<>(Wire.REQUESTS, 2);
            feeder.feedInChunks(stream.toByteArray(), chunk);
            assertThat(feeder.results)
                    .containsExactly(
                            new DecodeResult.Frame<>(new Request.Get(V2Samples.bytes("a"))),
                            new DecodeResult.Invalid<>("unknown request type 0x78 ('x')"),
                            new DecodeResult.Frame<>(new Request.Ping()));
        }
    }

    @Test
    void preambleThenFramesInOneBuffer() throws ProtocolException {
        ByteBuffer in = ByteBuffer.allocate(64).flip();
        assertThat(V2Codec.decodePreamble(in)).isFalse();
        in.compact().put(V2Codec.MAGIC).flip();
        assertThat(V2Codec.decodePreamble(in)).isFalse();
        assertThat(in.position()).isZero();
        in.compact().put(V2Codec.VERSION).put(V2Codec.encode(new Request.Ping(), LIMITS)).flip();
        assertThat(V2Codec.decodePreamble(in)).isTrue();
        assertThat(V2Codec.decodeRequest(in, LIMITS))
                .isEqualTo(new DecodeResult.Frame<>(new Request.Ping()));
        assertThat(in.hasRemaining()).isFalse();
    }

    /**
     * For every split point: the first part alone is Incomplete (nothing consumed, and it names the
     * bytes the frame needs), and once the second part is appended the frame decodes.
     */
    private static <T> void assertSplitsEverywhere(Wire<T> wire, T value) throws ProtocolException {
        byte[] frame = wire.encode(value, LIMITS);
        for (int split = 0; split < frame.length; split++) {
            ByteBuffer buffer = ByteBuffer.allocate(frame.length);
            buffer.put(frame, 0, split).flip();
            int expectedNeed = split < V2Codec.HEADER_BYTES ? V2Codec.HEADER_BYTES : frame.length;
            assertThat(wire.decode(buffer, LIMITS))
                    .as("%s split at %d", value, split)
                    .isEqualTo(new DecodeResult.Incomplete<>(expectedNeed));
            assertThat(buffer.position()).isZero();

            buffer.compact().put(frame, split, frame.length - split).flip();
            assertThat(wire.decode(buffer, LIMITS))
                    .as("%s split at %d", value, split)
                    .isEqualTo(new DecodeResult.Frame<>(value));
            assertThat(buffer.hasRemaining()).isFalse();
        }
    }

    private static <T> void assertByteByByte(Wire<T> wire, T value) throws ProtocolException {
        byte[] frame = wire.encode(value, LIMITS);
        Feeder<T> feeder = new Feeder<>(wire, 1);
        for (int i = 0; i < frame.length; i++) {
            assertThat(feeder.results).as("%s after %d bytes", value, i).isEmpty();
            feeder.feed(frame, i, i + 1);
        }
        assertThat(feeder.results).containsExactly(new DecodeResult.Frame<>(value));
    }

    private static <T> void assertPipelined(Wire<T> wire, List<T> values) throws ProtocolException {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<DecodeResult.Complete<T>> expected = new ArrayList<>();
        for (T value : values) {
            stream.writeBytes(wire.encode(value, LIMITS));
            expected.add(new DecodeResult.Frame<>(value));
        }
        byte[] bytes = stream.toByteArray();
        for (int chunk : new int[] {1, 2, 3, 5, 7, 64, 1000, bytes.length}) {
            Feeder<T> feeder = new Feeder<>(wire, 16);
            feeder.feedInChunks(bytes, chunk);
            assertThat(feeder.results).as("chunks of %d bytes", chunk).isEqualTo(expected);
        }
    }

    /**
     * A miniature event loop: appends what arrives to a buffer, decodes every whole frame in it,
     * keeps the rest for later, and grows the buffer only when an Incomplete result says the next
     * frame needs more room than it has. If that hint were wrong the loop would stall, and {@link
     * #feed} would fail.
     */
    private static final class Feeder<T> {
        private final Wire<T> wire;
        private ByteBuffer buffer;
        final List<DecodeResult.Complete<T>> results = new ArrayList<>();

        Feeder(Wire<T> wire, int initialCapacity) {
            this.wire = wire;
            this.buffer = ByteBuffer.allocate(initialCapacity);
        }

        void feedInChunks(byte[] bytes, int chunk) throws ProtocolException {
            for (int from = 0; from < bytes.length; from += chunk) {
                feed(bytes, from, Math.min(bytes.length, from + chunk));
            }
        }

        /** Like a socket read: takes what fits, decodes, and repeats until everything is in. */
        void feed(byte[] bytes, int from, int to) throws ProtocolException {
            while (from < to) {
                int n = Math.min(buffer.remaining(), to - from);
                assertThat(n)
                        .as("the buffer is full and no frame completes: the size hint was wrong")
                        .isPositive();
                buffer.put(bytes, from, n);
                from += n;
                decodeAvailable();
            }
        }

        private void decodeAvailable() throws ProtocolException {
            buffer.flip();
            while (true) {
                int before = buffer.position();
                DecodeResult<T> result = wire.decode(buffer, LIMITS);
                if (result instanceof DecodeResult.Incomplete<T>(int needed)) {
                    assertThat(buffer.position()).isEqualTo(before);
                    assertThat(needed)
                            .isGreaterThan(buffer.remaining())
                            .isLessThanOrEqualTo(V2Codec.HEADER_BYTES + LIMITS.maxFrameBytes());
                    buffer.compact();
                    if (needed > buffer.capacity()) {
                        buffer = ByteBuffer.allocate(needed).put(buffer.flip());
                    }
                    return;
                }
                results.add((DecodeResult.Complete<T>) result);
            }
        }
    }
}
