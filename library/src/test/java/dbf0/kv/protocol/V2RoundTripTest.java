package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Samples.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Encode then decode gives the same value back, through every path (array, heap and direct buffers
 * of either byte order, streams), over sizes around every boundary that matters: v1's one-byte
 * prefix (127, 128), two-byte lengths (65535, 65536) and the default limits.
 */
class V2RoundTripTest {

    /** Key sizes up to the 64 KiB default limit. */
    private static final int[] KEY_SIZES = {0, 1, 127, 128, 255, 256, 65535, 65536};

    /** Value sizes up to the 1 MiB default limit. */
    private static final int[] VALUE_SIZES = {
        0, 1, 127, 128, 65535, 65536, 1024 * 1024 - 1, 1024 * 1024
    };

    /** Small and boundary sizes, for batches of many operations. */
    private static final int[] BATCH_FIELD_SIZES = {0, 0, 1, 3, 16, 127, 128, 1000};

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    @Test
    void everyKeySizeInEveryKeyedRequest() throws IOException {
        Random random = new Random(1);
        for (int size : KEY_SIZES) {
            ByteArrayWrapper key = bytes(random, size);
            assertRoundTrip(Wire.REQUESTS, new Request.Get(key));
            assertRoundTrip(Wire.REQUESTS, new Request.Delete(key));
            assertRoundTrip(Wire.REQUESTS, new Request.Set(key, bytes(random, 5)));
        }
    }

    @Test
    void everyValueSizeInSetAndValue() throws IOException {
        Random random = new Random(2);
        for (int size : VALUE_SIZES) {
            ByteArrayWrapper value = bytes(random, size);
            assertRoundTrip(Wire.REQUESTS, new Request.Set(bytes(random, 8), value));
            assertRoundTrip(Wire.RESPONSES, new Response.Value(value));
        }
        // The largest SET the defaults allow: 64 KiB key, 1 MiB value.
        assertRoundTrip(
                Wire.REQUESTS, new Request.Set(bytes(random, 65536), bytes(random, 1024 * 1024)));
    }

    @Test
    void fixedSamplesOfEveryKind() throws IOException {
        for (Request request : V2Samples.requests()) {
            assertRoundTrip(Wire.REQUESTS, request);
        }
        for (Response response : V2Samples.responses()) {
            assertRoundTrip(Wire.RESPONSES, response);
        }
    }

    @Test
    void randomBatchesAndBatchReplies() throws IOException {
        Random random = new Random(3);
        for (int i = 0; i < 300; i++) {
            assertRoundTrip(Wire.REQUESTS, V2Samples.randomBatch(random, 40, BATCH_FIELD_SIZES));
            assertRoundTrip(
                    Wire.RESPONSES, V2Samples.randomBatchReply(random, 40, BATCH_FIELD_SIZES));
        }
    }

    @Test
    void randomSingleRequestsAndReplies() throws IOException {
        Random random = new Random(4);
        for (int i = 0; i < 500; i++) {
            assertRoundTrip(Wire.REQUESTS, V2Samples.randomOperation(random, BATCH_FIELD_SIZES));
            assertRoundTrip(Wire.RESPONSES, V2Samples.randomReply(random, BATCH_FIELD_SIZES));
        }
    }

    @Test
    void aBatchAtTheOpLimit() throws IOException {
        ProtocolLimits limits = new ProtocolLimits(16, 16, 1 << 20, 1000);
        Random random = new Random(5);
        List<Request> ops = new ArrayList<>();
        while (ops.size() < limits.maxBatchOps()) {
            ops.add(V2Samples.randomOperation(random, new int[] {0, 1, 16}));
        }
        Request.Batch batch = new Request.Batch(ops);
        byte[] frame = V2Codec.encode(batch, limits);
        assertThat(V2Codec.decodeRequest(ByteBuffer.wrap(frame), limits))
                .isEqualTo(new DecodeResult.Frame<>(batch));
    }

    /** Every encoder and decoder path agrees, and each decode consumes exactly the frame. */
    private static <T> void assertRoundTrip(Wire<T> wire, T value) throws IOException {
        byte[] frame = wire.encode(value, LIMITS);
        assertThat(frame).hasSize(wire.encodedSize(value));
        DecodeResult.Frame<T> expected = new DecodeResult.Frame<>(value);

        ByteBuffer heap = ByteBuffer.wrap(frame);
        assertThat(wire.decode(heap, LIMITS)).isEqualTo(expected);
        assertThat(heap.hasRemaining()).isFalse();

        // A direct, little-endian buffer with bytes on both sides: byte order and offsets do not
        // matter.
        ByteBuffer direct =
                ByteBuffer.allocateDirect(frame.length + 6).order(ByteOrder.LITTLE_ENDIAN);
        direct.put(new byte[] {9, 9, 9});
        wire.encode(value, direct, LIMITS);
        direct.put(new byte[] {9, 9, 9});
        direct.flip().position(3);
        assertThat(direct.slice(3, frame.length)).isEqualTo(ByteBuffer.wrap(frame));
        assertThat(wire.decode(direct, LIMITS)).isEqualTo(expected);
        assertThat(direct.remaining()).isEqualTo(3);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        wire.write(out, value, LIMITS);
        ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
        assertThat(wire.read(in, LIMITS)).isEqualTo(expected);
        assertThat(in.available()).isZero();
    }
}
