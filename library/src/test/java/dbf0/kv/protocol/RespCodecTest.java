package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The RESP2 codec against raw bytes, as redis-cli and redis-benchmark send them. */
class RespCodecTest {

    static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    static List<String> args(DecodeResult<List<byte[]>> parsed) {
        assertThat(parsed).isInstanceOf(DecodeResult.Frame.class);
        return ((DecodeResult.Frame<List<byte[]>>) parsed)
                .value().stream().map(a -> new String(a, StandardCharsets.ISO_8859_1)).toList();
    }

    static DecodeResult<List<byte[]>> parse(ByteBuffer in) throws ProtocolException {
        return RespCodec.parse(in, 1024, 1 << 20, 1024);
    }

    @Test
    void parsesAnArrayOfBulkStrings() throws Exception {
        ByteBuffer in = bytes("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nv\r\nx!\r\n");
        assertThat(args(parse(in))).containsExactly("SET", "key", "v\r\nx!"); // binary-safe
        assertThat(in.hasRemaining()).isFalse();
    }

    @Test
    void parsesPipelinedCommandsOneAtATime() throws Exception {
        ByteBuffer in = bytes("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\nPING\r\n");
        assertThat(args(parse(in))).containsExactly("PING");
        assertThat(args(parse(in))).containsExactly("GET", "a");
        assertThat(args(parse(in))).containsExactly("PING");
        assertThat(parse(in)).isInstanceOf(DecodeResult.Incomplete.class);
    }

    @Test
    void everySplitPointIsIncompleteUntilTheEnd() throws Exception {
        String command = "*2\r\n$3\r\nGET\r\n$10\r\n0123456789\r\n";
        for (int cut = 0; cut < command.length(); cut++) {
            ByteBuffer partial = bytes(command.substring(0, cut));
            assertThat(parse(partial))
                    .as("cut at %d", cut)
                    .isInstanceOf(DecodeResult.Incomplete.class);
            assertThat(partial.position()).isZero(); // nothing consumed
        }
        assertThat(args(parse(bytes(command)))).containsExactly("GET", "0123456789");
    }

    @Test
    void incompleteSaysHowManyBytesTheBulkNeeds() throws Exception {
        DecodeResult<List<byte[]>> parsed = parse(bytes("*1\r\n$100000\r\nabc"));
        assertThat(((DecodeResult.Incomplete<List<byte[]>>) parsed).neededBytes())
                .isEqualTo(4 + 9 + 100_000 + 2);
    }

    @Test
    void inlineCommands() throws Exception {
        assertThat(args(parse(bytes("PING\r\n")))).containsExactly("PING");
        assertThat(args(parse(bytes("SET  a   b\n")))).containsExactly("SET", "a", "b");
        assertThat(args(parse(bytes("\r\n")))).isEmpty();
        assertThat(parse(bytes("PIN"))).isInstanceOf(DecodeResult.Incomplete.class);
    }

    @Test
    void lengthsAreBoundedBeforeAnythingIsAllocated() {
        assertThatThrownBy(() -> parse(bytes("*99999999\r\n")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("multibulk length");
        assertThatThrownBy(() -> parse(bytes("*1\r\n$2000000\r\n")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("bulk length");
        assertThatThrownBy(() -> parse(bytes("*1\r\n$-5\r\n")))
                .isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse(bytes("*1\r\n+3\r\n")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("'$'");
        assertThatThrownBy(() -> parse(bytes("*1\r\n$3\r\nabcXY")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("CRLF");
        assertThatThrownBy(() -> parse(bytes("*x\r\n"))).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse(bytes("A".repeat(2000))))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("inline");
    }

    @Test
    void repliesAreByteExact() {
        assertThat(new String(RespCodec.simple("OK"), StandardCharsets.US_ASCII))
                .isEqualTo("+OK\r\n");
        assertThat(new String(RespCodec.error("ERR bad\r\nthing"), StandardCharsets.US_ASCII))
                .isEqualTo("-ERR bad  thing\r\n");
        assertThat(new String(RespCodec.integer(-42), StandardCharsets.US_ASCII))
                .isEqualTo(":-42\r\n");
        assertThat(new String(RespCodec.arrayHeader(2), StandardCharsets.US_ASCII))
                .isEqualTo("*2\r\n");
        ByteBuffer out = ByteBuffer.allocate(64);
        RespCodec.putBulk(out, "hello".getBytes(StandardCharsets.US_ASCII));
        RespCodec.putBulk(out, null);
        RespCodec.putBulk(out, new byte[0]);
        assertThat(new String(out.array(), 0, out.position(), StandardCharsets.US_ASCII))
                .isEqualTo("$5\r\nhello\r\n$-1\r\n$0\r\n\r\n");
        assertThat(RespCodec.bulkSize("hello".getBytes(StandardCharsets.US_ASCII))).isEqualTo(11);
        assertThat(RespCodec.bulkSize(null)).isEqualTo(5);
    }

    @Test
    void verbatimStringsCountTheirFormatAndRefuseAnyOtherLength() {
        byte[] text = "hi".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer out = ByteBuffer.allocate(RespCodec.verbatimSize(text));
        RespCodec.putVerbatim(out, "txt", text);
        assertThat(out.hasRemaining()).isFalse();
        assertThat(new String(out.array(), StandardCharsets.US_ASCII))
                .isEqualTo("=6\r\ntxt:hi\r\n");
        assertThatThrownBy(() -> RespCodec.putVerbatim(ByteBuffer.allocate(64), "text", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a verbatim string's format has three characters: text");
    }
}
