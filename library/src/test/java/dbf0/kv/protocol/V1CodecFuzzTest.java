package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Fuzzes v1's buffer decoder ({@link V1Codec#decodeRequest}): valid requests, mutated requests
 * (one-byte prefixes set to 0, 127, 128, 255) and random bytes. v1 is one request per connection,
 * but the decoder is called on whatever the buffer holds, so inputs may hold several.
 */
class V1CodecFuzzTest {

    static final int[] EXTREMES = {0, 1, 126, 127, 128, 255, 's', 'g'};

    static Arbitrary<ByteArrayWrapper> arrays() {
        return Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(V1Codec.MAX_LENGTH)
                .map(ByteArrayWrapper::new);
    }

    @Provide
    Arbitrary<V1Codec.V1Request> requests() {
        return Arbitraries.oneOf(
                arrays().map(key -> new V1Codec.V1Request(V1Codec.GET, key, null)),
                Combinators.combine(arrays(), arrays())
                        .as((key, value) -> new V1Codec.V1Request(V1Codec.SET, key, value)));
    }

    @Provide
    Arbitrary<byte[]> streams() {
        Arbitrary<byte[]> valid =
                requests()
                        .map(V1CodecFuzzTest::encode)
                        .list()
                        .ofMinSize(1)
                        .ofMaxSize(3)
                        .map(FuzzBytes::concat);
        Arbitrary<byte[]> mutated =
                Combinators.combine(
                                valid,
                                FuzzBytes.mutations(EXTREMES).list().ofMinSize(1).ofMaxSize(4))
                        .as(FuzzBytes::apply);
        return Arbitraries.oneOf(
                mutated, mutated, mutated, Arbitraries.bytes().array(byte[].class).ofMaxSize(300));
    }

    static byte[] encode(V1Codec.V1Request request) {
        return request.op() == V1Codec.SET
                ? V1Codec.encodeSet(request.key(), request.value())
                : V1Codec.encodeGet(request.key());
    }

    /**
     * Invariant 3: decode(encode(x)) == x, and every strict prefix is "not yet", consuming nothing.
     */
    @Property
    void requestsRoundTrip(@ForAll("requests") V1Codec.V1Request request) throws IOException {
        byte[] bytes = encode(request);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        assertThat(V1Codec.decodeRequest(in)).isEqualTo(new DecodeResult.Frame<>(request));
        assertThat(in.hasRemaining()).isFalse();
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, cut);
            DecodeResult<V1Codec.V1Request> result = V1Codec.decodeRequest(prefix);
            assertThat(result).isInstanceOf(DecodeResult.Incomplete.class);
            // Never more than the whole request, never less than one byte beyond the prefix.
            assertThat(((DecodeResult.Incomplete<V1Codec.V1Request>) result).neededBytes())
                    .isBetween(cut + 1, bytes.length);
            assertThat(prefix.position()).isZero();
        }
        // The blocking reader, as the thread-per-connection seed server uses it.
        ByteArrayInputStream stream = new ByteArrayInputStream(bytes, 1, bytes.length - 1);
        assertThat(V1Codec.readBytes(stream)).isEqualTo(request.key());
        if (request.value() != null) {
            assertThat(V1Codec.readBytes(stream)).isEqualTo(request.value());
        }
    }

    @Property
    void getResponsesRoundTrip(@ForAll("requests") V1Codec.V1Request any, @ForAll boolean found)
            throws IOException {
        ByteArrayWrapper value = found ? any.key() : null;
        byte[] bytes = V1Codec.encodeGetResponse(value);
        assertThat(V1Codec.readGetResponse(new ByteArrayInputStream(bytes))).isEqualTo(value);
    }

    /**
     * Invariants 1 and 2: only ProtocolException, nothing consumed unless a request was, arrays
     * within 127.
     */
    @Property
    void mutatedStreamsDecodeSafely(@ForAll("streams") byte[] input) {
        decodeAll(input);
    }

    /**
     * Invariant 4 at the decoder: a prefix decodes to a prefix of the results, and a refusal is
     * final.
     */
    @Property
    void aPrefixNeverDisagreesWithTheWhole(
            @ForAll("streams") byte[] input, @ForAll @IntRange(max = 1 << 16) int cut) {
        List<Object> whole = decodeAll(input);
        List<Object> partial = decodeAll(Arrays.copyOf(input, cut % (input.length + 1)));
        List<Object> settled = partial.subList(0, partial.size() - 1);
        assertThat(whole.subList(0, settled.size())).isEqualTo(settled);
        if (partial.getLast() == V2CodecFuzzTest.FATAL) {
            assertThat(whole.get(settled.size())).isEqualTo(V2CodecFuzzTest.FATAL);
        }
    }

    static List<Object> decodeAll(byte[] input) {
        ByteBuffer in = ByteBuffer.wrap(input);
        List<Object> results = new ArrayList<>();
        while (true) {
            int start = in.position();
            DecodeResult<V1Codec.V1Request> result;
            try {
                result = V1Codec.decodeRequest(in);
            } catch (ProtocolException fatal) {
                assertThat(in.position()).isEqualTo(start);
                results.add(V2CodecFuzzTest.FATAL);
                return results;
            } catch (RuntimeException | Error e) {
                FuzzBytes.failUnexpected(e, input);
                return results;
            }
            if (result instanceof DecodeResult.Incomplete<V1Codec.V1Request>(int needed)) {
                assertThat(in.position()).isEqualTo(start);
                // At least one byte more than is there, at most the largest request (two 127-byte
                // arrays).
                assertThat(needed)
                        .isGreaterThan(in.remaining())
                        .isLessThanOrEqualTo(1 + 2 * (1 + V1Codec.MAX_LENGTH));
                results.add(V2CodecFuzzTest.INCOMPLETE);
                return results;
            }
            assertThat(result)
                    .as("v1 has no recoverable errors")
                    .isInstanceOf(DecodeResult.Frame.class);
            V1Codec.V1Request request = ((DecodeResult.Frame<V1Codec.V1Request>) result).value();
            assertThat(request.key().length()).isLessThanOrEqualTo(V1Codec.MAX_LENGTH);
            if (request.value() != null) {
                assertThat(request.value().length()).isLessThanOrEqualTo(V1Codec.MAX_LENGTH);
            }
            // One encoding per request: what was consumed is exactly its re-encoding.
            assertThat(encode(request)).isEqualTo(Arrays.copyOfRange(input, start, in.position()));
            results.add(request);
        }
    }
}
