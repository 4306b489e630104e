package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every vector of vectors/seed-protocol.json (a copy of the shared seed-protocol vectors). */
public class V1CodecVectorsTest {

    static JsonObject vectors() {
        try (InputStream in =
                V1CodecVectorsTest.class.getResourceAsStream("/vectors/seed-protocol.json")) {
            return JsonParser.parseReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .getAsJsonObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The vectors, for the tests of other packages that check fields of the same file. */
    public static JsonObject vectorsForOtherTests() {
        return vectors();
    }

    static Stream<JsonObject> requests() {
        return stream(vectors().getAsJsonArray("requests"));
    }

    static Stream<JsonObject> responses() {
        return stream(vectors().getAsJsonArray("responses"));
    }

    private static Stream<JsonObject> stream(JsonArray array) {
        return array.asList().stream().map(JsonElement::getAsJsonObject);
    }

    private static ByteArrayWrapper hex(JsonObject o, String field) {
        return ByteArrayWrapper.fromHex(o.get(field).getAsString());
    }

    @Test
    void opcodesMatch() {
        JsonObject ops = vectors().getAsJsonObject("opcodes");
        assertThat(ByteArrayWrapper.of(V1Codec.SET)).isEqualTo(hex(ops, "SET"));
        assertThat(ByteArrayWrapper.of(V1Codec.GET)).isEqualTo(hex(ops, "GET"));
        assertThat(ByteArrayWrapper.of(V1Codec.FOUND)).isEqualTo(hex(ops, "FOUND"));
        assertThat(ByteArrayWrapper.of(V1Codec.NOT_FOUND)).isEqualTo(hex(ops, "NOT_FOUND"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void encodesAndDecodesRequest(JsonObject v) throws Exception {
        ByteArrayWrapper key = hex(v, "key");
        byte[] expected = Hex.decodeHex(v.get("bytes").getAsString().toCharArray());
        byte[] encoded =
                v.get("op").getAsString().equals("SET")
                        ? V1Codec.encodeSet(key, hex(v, "value"))
                        : V1Codec.encodeGet(key);
        assertThat(Hex.encodeHexString(encoded)).isEqualTo(v.get("bytes").getAsString());

        // The streaming writer produces the same bytes as the frame encoder.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(encoded[0]);
        V1Codec.writeBytes(out, key);
        if (v.has("value")) {
            V1Codec.writeBytes(out, hex(v, "value"));
        }
        assertThat(out.toByteArray()).isEqualTo(expected);

        // And decoding gives the fields back, consuming the whole frame.
        InputStream in = new ByteArrayInputStream(expected);
        assertThat(in.read()).isEqualTo(expected[0] & 0xff);
        assertThat(V1Codec.readBytes(in)).isEqualTo(key);
        if (v.has("value")) {
            assertThat(V1Codec.readBytes(in)).isEqualTo(hex(v, "value"));
        }
        assertThat(in.read()).isEqualTo(-1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("responses")
    void encodesAndDecodesResponse(JsonObject v) throws Exception {
        ByteArrayWrapper value =
                v.get("kind").getAsString().equals("FOUND") ? hex(v, "value") : null;
        assertThat(Hex.encodeHexString(V1Codec.encodeGetResponse(value)))
                .isEqualTo(v.get("bytes").getAsString());
        byte[] bytes = Hex.decodeHex(v.get("bytes").getAsString());
        assertThat(V1Codec.readGetResponse(new ByteArrayInputStream(bytes))).isEqualTo(value);
    }

    @Test
    void writerRefuses128ByteValueBeforeSendingAnything() {
        JsonObject v = vectors().getAsJsonArray("invalid").get(0).getAsJsonObject();
        ByteArrayWrapper value = new ByteArrayWrapper(new byte[v.get("value_length").getAsInt()]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> V1Codec.writeBytes(out, value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("127");
        assertThatThrownBy(() -> V1Codec.encodeSet(hex(v, "key"), value))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(out.size()).isZero();
    }

    @Test
    void truncatedKeyIsEndOfStream() throws Exception {
        InputStream in = new ByteArrayInputStream(Hex.decodeHex("67050102"));
        assertThat(in.read()).isEqualTo('g');
        assertThatThrownBy(() -> V1Codec.readBytes(in))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("2 of 5");
    }

    @Test
    void lengthPrefixAbove127IsAProtocolError() {
        InputStream in = new ByteArrayInputStream(new byte[] {(byte) 0x80, 1, 2});
        assertThatThrownBy(() -> V1Codec.readBytes(in))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("0x80");
    }

    @Test
    void unknownResponseByteIsAProtocolError() {
        assertThatThrownBy(
                        () -> V1Codec.readGetResponse(new ByteArrayInputStream(new byte[] {'x'})))
                .isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> V1Codec.readGetResponse(new ByteArrayInputStream(new byte[0])))
                .isInstanceOf(EOFException.class);
    }
}
