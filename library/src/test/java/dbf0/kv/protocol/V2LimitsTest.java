package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Samples.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.io.IOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Limits, and malformed input beyond the vectors: what is fatal, what is recoverable, what is
 * refused.
 */
class V2LimitsTest {

    /**
     * Keys to 4 bytes, values to 8, frames to 64, batches to 2 ops: small enough to cross by hand.
     */
    private static final ProtocolLimits SMALL = new ProtocolLimits(4, 8, 64, 2);

    @Test
    void defaults() {
        assertThat(ProtocolLimits.DEFAULTS)
                .isEqualTo(new ProtocolLimits(65536, 1 << 20, 16 << 20, 100_000));
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new ProtocolLimits(0, 8, 64, 2))
                .hasMessageContaining("maxKeyBytes must be positive");
        assertThatThrownBy(() -> new ProtocolLimits(4, -1, 64, 2))
                .hasMessageContaining("maxValueBytes");
        assertThatThrownBy(() -> new ProtocolLimits(4, 8, 0, 2))
                .hasMessageContaining("maxFrameBytes");
        assertThatThrownBy(() -> new ProtocolLimits(4, 8, 64, 0))
                .hasMessageContaining("maxBatchOps");
    }

    @Test
    void aFrameMustHoldTheLargestSet() {
        assertThatCode(() -> new ProtocolLimits(4, 8, 4 + 8 + 9, 1)).doesNotThrowAnyException();
        assertThatThrownBy(() -> new ProtocolLimits(4, 8, 4 + 8 + 8, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot hold a SET");
        assertThatThrownBy(
                        () ->
                                new ProtocolLimits(
                                        Integer.MAX_VALUE,
                                        Integer.MAX_VALUE,
                                        ProtocolLimits.MAX_FRAME_CEILING,
                                        1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot hold a SET");
        assertThatThrownBy(() -> new ProtocolLimits(4, 8, Integer.MAX_VALUE, 1))
                .hasMessageContaining("one Java array");
    }

    @Test
    void theLargestSetUnderTheLimitsFitsExactly() throws ProtocolException {
        ProtocolLimits tight = new ProtocolLimits(4, 8, 4 + 8 + 9, 1);
        Request set = new Request.Set(bytes("abcd"), bytes("12345678"));
        byte[] frame = V2Codec.encode(set, tight);
        assertThat(frame).hasSize(V2Codec.HEADER_BYTES + tight.maxFrameBytes());
        assertThat(V2Codec.decodeRequest(ByteBuffer.wrap(frame), tight))
                .isEqualTo(new DecodeResult.Frame<>(set));
    }

    @Test
    void maxLengthHeaderIsFatalWithoutAllocating() {
        // 0x7fffffff would be a 2 GiB array: the check must come first. Only the 4 header bytes
        // exist.
        for (String header : new String[] {"7fffffff", "80000000", "ffffffff", "01000001"}) {
            V2VectorsTest.assertFatal(
                    Wire.REQUESTS,
                    V2Vectors.hex(header),
                    ProtocolLimits.DEFAULTS,
                    "exceeds the 16777216-byte limit");
            V2VectorsTest.assertFatal(
                    Wire.RESPONSES, V2Vectors.hex(header), ProtocolLimits.DEFAULTS, "exceeds");
        }
    }

    @Test
    void aHugeAllowedFrameIsIncompleteUntilItsBytesArrive() throws ProtocolException {
        // Even with the largest limit, announcing 2 GiB only makes the decoder ask for the bytes.
        ProtocolLimits huge =
                new ProtocolLimits(1 << 20, 1 << 20, ProtocolLimits.MAX_FRAME_CEILING, 10);
        ByteBuffer in = ByteBuffer.wrap(V2Vectors.hex("7ffffff0 47 00000000"));
        assertThat(V2Codec.decodeRequest(in, huge))
                .isEqualTo(new DecodeResult.Incomplete<>(0x7ffffff4));
        assertThat(in.position()).isZero();
        assertThatThrownBy(
                        () ->
                                V2Codec.decodeRequest(
                                        ByteBuffer.wrap(V2Vectors.hex("7ffffff4")), huge))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void aFrameExactlyAtTheLimitIsAcceptedAndOneMoreIsFatal() throws ProtocolException {
        // An ERROR's body is 5 bytes plus its message, so a 59-byte message makes a 64-byte body.
        byte[] message = new byte[64 - 5];
        Arrays.fill(message, (byte) 'x');
        Response atLimit = new Response.Error(new String(message, StandardCharsets.US_ASCII));
        byte[] frame = V2Codec.encode(atLimit, SMALL);
        assertThat(frame).hasSize(4 + 64);
        assertThat(V2Codec.decodeResponse(ByteBuffer.wrap(frame), SMALL))
                .isEqualTo(new DecodeResult.Frame<>(atLimit));

        Response overLimit =
                new Response.Error(new String(message, StandardCharsets.US_ASCII) + "x");
        assertThatThrownBy(() -> V2Codec.encode(overLimit, SMALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frame of 65 bytes exceeds the 64-byte limit");
        byte[] big = V2Codec.encode(overLimit, ProtocolLimits.DEFAULTS);
        V2VectorsTest.assertFatal(Wire.RESPONSES, big, SMALL, "frame of 65 bytes");
    }

    @Test
    void fieldsAtTheLimitPassAndOneMoreIsRefusedOnBothSides() throws IOException {
        Request keyAtLimit = new Request.Get(bytes("abcd"));
        Request valueAtLimit = new Request.Set(bytes("k"), bytes("12345678"));
        for (Request request : List.of(keyAtLimit, valueAtLimit)) {
            assertThat(
                            V2Codec.decodeRequest(
                                    ByteBuffer.wrap(V2Codec.encode(request, SMALL)), SMALL))
                    .isEqualTo(new DecodeResult.Frame<>(request));
        }
        Request keyOver = new Request.Delete(bytes("abcde"));
        Request valueOver = new Request.Set(bytes("k"), bytes("123456789"));
        for (Request request : List.of(keyOver, valueOver)) {
            String refusal = catchMessage(() -> V2Codec.encode(request, SMALL));
            // The reader reports the same words the writer refuses with.
            V2VectorsTest.assertRecoverable(
                    Wire.REQUESTS,
                    V2Codec.encode(request, ProtocolLimits.DEFAULTS),
                    SMALL,
                    refusal);
        }
    }

    @Test
    void oneBadOpMakesTheWholeBatchInvalid() throws IOException {
        Request.Batch batch =
                new Request.Batch(
                        List.of(
                                new Request.Set(bytes("k"), bytes("v")),
                                new Request.Get(bytes("abcde"))));
        V2VectorsTest.assertRecoverable(
                Wire.REQUESTS,
                V2Codec.encode(batch, ProtocolLimits.DEFAULTS),
                SMALL,
                "batch op 1: key of 5 bytes exceeds the 4-byte limit");
        // An unknown type byte inside a batch names its position too.
        V2VectorsTest.assertRecoverable(
                Wire.REQUESTS,
                V2Vectors.hex("0000000b 42 00000002 47 00000000 78"),
                ProtocolLimits.DEFAULTS,
                "batch op 1: unknown request type 0x78");
        V2VectorsTest.assertRecoverable(
                Wire.RESPONSES,
                V2Vectors.hex("00000007 42 00000002 4b 50"),
                ProtocolLimits.DEFAULTS,
                "batch reply 1: unknown response type 0x50");
    }

    @Test
    void batchCountsAreBoundedByTheLimitAndByTheBody() throws IOException {
        Request.Batch three =
                new Request.Batch(
                        List.of(
                                new Request.Get(bytes("a")),
                                new Request.Get(bytes("b")),
                                new Request.Get(bytes("c"))));
        assertThatThrownBy(() -> V2Codec.encode(three, SMALL))
                .hasMessageContaining("batch of 3 ops exceeds the 2-op limit");
        V2VectorsTest.assertRecoverable(
                Wire.REQUESTS,
                V2Codec.encode(three, ProtocolLimits.DEFAULTS),
                SMALL,
                "batch of 3 ops exceeds the 2-op limit");
        // A count within the limit but beyond the body: the list is sized by the body, not the
        // count.
        V2VectorsTest.assertRecoverable(
                Wire.RESPONSES,
                V2Vectors.hex("00000006 42 000186a0 4b"),
                ProtocolLimits.DEFAULTS,
                "the frame ends after 1 of the batch's 100000 replies");
        V2VectorsTest.assertRecoverable(
                Wire.REQUESTS,
                V2Vectors.hex("00000005 42 80000000"),
                ProtocolLimits.DEFAULTS,
                "batch of 2147483648 ops exceeds");
    }

    @Test
    void theFrameEndingInsideABatchOpIsRecoverable() throws IOException {
        V2VectorsTest.assertRecoverable(
                Wire.REQUESTS,
                V2Vectors.hex("0000000d 42 00000001 53 00000001 61 0000"),
                ProtocolLimits.DEFAULTS,
                "batch op 0: the frame ends inside the value length (2 of 4 bytes)");
    }

    @Test
    void trailingBytesAfterResponses() throws IOException {
        V2VectorsTest.assertRecoverable(
                Wire.RESPONSES,
                V2Vectors.hex("00000003 4b 0000"),
                ProtocolLimits.DEFAULTS,
                "2 trailing bytes after the OK");
        V2VectorsTest.assertRecoverable(
                Wire.RESPONSES,
                V2Vectors.hex("00000007 42 00000001 4e 4e"),
                ProtocolLimits.DEFAULTS,
                "1 trailing byte after the BATCH (is its count smaller than the items sent?)");
    }

    @Test
    void anErrorMessageThatIsNotUtf8StillDecodes() throws ProtocolException {
        ByteBuffer in = ByteBuffer.wrap(V2Vectors.hex("00000007 45 00000002 c328"));
        assertThat(V2Codec.decodeResponse(in, ProtocolLimits.DEFAULTS))
                .isEqualTo(new DecodeResult.Frame<>(new Response.Error("\uFFFD(")));
    }

    @Test
    void anErrorMayStandInABatchReplyButNoBatchMay() {
        assertThatCode(
                        () ->
                                new Response.Batch(
                                        List.of(
                                                new Response.Error("op 2 failed"),
                                                new Response.Ok())))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> new Response.Batch(List.of(new Response.Batch(List.of()))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRequestBatchHoldsOnlyGetSetAndDelete() {
        assertThatThrownBy(() -> new Request.Batch(List.of(new Request.Ping())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only GET, SET and DELETE");
        assertThatThrownBy(() -> new Request.Batch(List.of(new Request.Batch(List.of()))))
                .isInstanceOf(IllegalArgumentException.class);
        List<Request> ops = new ArrayList<>(List.of(new Request.Get(bytes("a"))));
        Request.Batch batch = new Request.Batch(ops);
        ops.add(new Request.Ping());
        assertThat(batch.ops()).hasSize(1);
    }

    @Test
    void recordsRefuseNulls() {
        assertThatThrownBy(() -> new Request.Get(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Request.Set(bytes("k"), null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Response.Value(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Response.Error(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aBufferTooSmallIsRefusedBeforeAnythingIsWritten() {
        Request request = new Request.Set(bytes("key"), bytes("value"));
        int size = V2Codec.encodedSize(request);
        ByteBuffer out = ByteBuffer.allocate(size - 1);
        assertThatThrownBy(() -> V2Codec.encode(request, out, ProtocolLimits.DEFAULTS))
                .isInstanceOf(BufferOverflowException.class);
        assertThat(out.position()).isZero();
        assertThat(out.array()).containsOnly(0);
        ByteBuffer exact = ByteBuffer.allocate(size);
        V2Codec.encode(request, exact, ProtocolLimits.DEFAULTS);
        assertThat(exact.hasRemaining()).isFalse();
    }

    @Test
    void aLittleEndianBufferStillGetsABigEndianHeader() throws ProtocolException {
        ByteBuffer out = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        V2Codec.encode(new Response.Ok(), out, ProtocolLimits.DEFAULTS);
        assertThat(Arrays.copyOf(out.array(), 5)).isEqualTo(V2Vectors.hex("00000001 4b"));
        out.flip();
        assertThat(V2Codec.decodeResponse(out, ProtocolLimits.DEFAULTS))
                .isEqualTo(new DecodeResult.Frame<>(new Response.Ok()));
    }

    @Test
    void encodedSizeOfABatchTooLargeForAnArrayIsRefused() {
        // 2,100 references to one 1 MiB value: over 2 GiB encoded, while taking 1 MiB of memory.
        ByteArrayWrapper value = V2Samples.bytes(new Random(1), 1 << 20);
        List<Response> replies = new ArrayList<>();
        for (int i = 0; i < 2100; i++) {
            replies.add(new Response.Value(value));
        }
        Response.Batch batch = new Response.Batch(replies);
        assertThatThrownBy(() -> V2Codec.encodedSize(batch))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit in one Java array");
        assertThatThrownBy(() -> V2Codec.encode(batch, ProtocolLimits.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds the 16777216-byte limit");
    }

    private static String catchMessage(Runnable refusing) {
        try {
            refusing.run();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("expected the writer to refuse");
    }
}
