package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RANGE's bounds in the codec: what a reader refuses before allocating, what a writer refuses. */
class V2RangeCodecTest {

    private static final ProtocolLimits SMALL = new ProtocolLimits(4, 8, 64, 2);

    private static DecodeResult<Response> reply(String hex) throws ProtocolException {
        return V2Codec.decodeResponse(ByteBuffer.wrap(V2Vectors.hex(hex)), SMALL);
    }

    @Test
    void aReaderRefusesCountsAndFlagsOutsideTheFormat() throws Exception {
        assertThat(reply("00000006 52 00 ffffffff"))
                .isEqualTo(
                        new DecodeResult.Invalid<>(
                                "RANGE reply of 4294967295 pairs exceeds the 2-pair limit"));
        assertThat(reply("00000006 52 02 00000000"))
                .isEqualTo(
                        new DecodeResult.Invalid<>(
                                "a RANGE reply's more flag is 0 or 1, not 0x02"));
        assertThat(reply("00000006 52 00 00000001"))
                .as("a count with no pair behind it")
                .isInstanceOf(DecodeResult.Invalid.class);
        assertThat(reply("00000006 42 00000001 52"))
                .isEqualTo(
                        new DecodeResult.Invalid<>(
                                "batch reply 0: a RANGE cannot be inside a batch"));
        DecodeResult<Request> hugeLimit =
                V2Codec.decodeRequest(
                        ByteBuffer.wrap(V2Vectors.hex("0000000e 52 00 ffffffff 00000000 00000000")),
                        SMALL);
        assertThat(hugeLimit)
                .as("a limit of 2^32 - 1 means as many as the server gives")
                .isEqualTo(
                        new DecodeResult.Frame<Request>(
                                new Request.Range(
                                        ByteArrayWrapper.of(),
                                        false,
                                        ByteArrayWrapper.of(),
                                        Integer.MAX_VALUE)));
    }

    @Test
    void aWriterRefusesWhatItsLimitsForbid() {
        Response.Pair pair = new Response.Pair(ByteArrayWrapper.of(1), ByteArrayWrapper.of(2));
        assertThatThrownBy(
                        () ->
                                V2Codec.encode(
                                        new Response.Range(Collections.nCopies(3, pair), true),
                                        SMALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RANGE reply of 3 pairs exceeds the 2-pair limit");
        assertThatThrownBy(
                        () ->
                                V2Codec.encode(
                                        new Request.Range(
                                                ByteArrayWrapper.of(1, 2, 3, 4, 5),
                                                false,
                                                ByteArrayWrapper.of(),
                                                1),
                                        SMALL))
                .hasMessage("key of 5 bytes exceeds the 4-byte limit");
        assertThatThrownBy(
                        () ->
                                new Request.Range(
                                        ByteArrayWrapper.of(), false, ByteArrayWrapper.of(), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(V2Codec.encode(new Response.Range(List.of(pair, pair), false), SMALL))
                .hasSize(4 + 6 + 2 * 10);
    }
}
