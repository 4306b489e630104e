package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Vectors.bytes;
import static dbf0.kv.protocol.V2Vectors.limits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every vector of vectors/protocol-v2.json, both ways, through the buffer and the stream API. */
class V2VectorsTest {

    static Stream<Arguments> frames() {
        return Stream.concat(
                V2Vectors.section("requests")
                        .map(
                                v ->
                                        Arguments.of(
                                                v.get("name").getAsString(),
                                                Wire.REQUESTS,
                                                V2Vectors.request(v.getAsJsonObject("request")),
                                                bytes(v, "bytes"))),
                V2Vectors.section("responses")
                        .map(
                                v ->
                                        Arguments.of(
                                                v.get("name").getAsString(),
                                                Wire.RESPONSES,
                                                V2Vectors.response(v.getAsJsonObject("response")),
                                                bytes(v, "bytes"))));
    }

    static Stream<Arguments> invalid() {
        return V2Vectors.section("invalid").map(v -> Arguments.of(v.get("name").getAsString(), v));
    }

    @Test
    void typeBytesAndPreambleMatch() {
        JsonObject types = V2Vectors.load().getAsJsonObject("types");
        byte[][] ours = {
            {V2Codec.GET},
            {V2Codec.SET},
            {V2Codec.DELETE},
            {V2Codec.PING},
            {V2Codec.BATCH},
            {V2Codec.VALUE},
            {V2Codec.NOT_FOUND},
            {V2Codec.OK},
            {V2Codec.ERROR},
            {V2Codec.RANGE}
        };
        String[] names = {
            "GET", "SET", "DELETE", "PING", "BATCH", "VALUE", "NOT_FOUND", "OK", "ERROR", "RANGE"
        };
        for (int i = 0; i < names.length; i++) {
            assertThat(bytes(types, names[i])).as(names[i]).isEqualTo(ours[i]);
        }
        assertThat(V2Codec.preamble()).isEqualTo(bytes(V2Vectors.load(), "preamble"));
        assertThat(V2Vectors.limits(new JsonObject())).isEqualTo(ProtocolLimits.DEFAULTS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frames")
    <T> void encodesToTheVectorBytes(String name, Wire<T> wire, T value, byte[] expected)
            throws IOException {
        assertThat(Hex.encodeHexString(wire.encode(value, ProtocolLimits.DEFAULTS)))
                .isEqualTo(Hex.encodeHexString(expected));
        assertThat(wire.encodedSize(value)).isEqualTo(expected.length);

        ByteBuffer buffer = ByteBuffer.allocate(expected.length + 3);
        buffer.put((byte) 0x55);
        wire.encode(value, buffer, ProtocolLimits.DEFAULTS);
        assertThat(buffer.position()).isEqualTo(1 + expected.length);
        assertThat(ByteBuffer.wrap(buffer.array(), 1, expected.length))
                .isEqualTo(ByteBuffer.wrap(expected));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        wire.write(out, value, ProtocolLimits.DEFAULTS);
        assertThat(out.toByteArray()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frames")
    <T> void decodesFromTheVectorBytes(String name, Wire<T> wire, T value, byte[] expected)
            throws IOException {
        ByteBuffer in = ByteBuffer.wrap(expected);
        assertThat(wire.decode(in, ProtocolLimits.DEFAULTS))
                .isEqualTo(new DecodeResult.Frame<>(value));
        assertThat(in.hasRemaining()).isFalse();

        ByteArrayInputStream stream = new ByteArrayInputStream(expected);
        assertThat(wire.read(stream, ProtocolLimits.DEFAULTS))
                .isEqualTo(new DecodeResult.Frame<>(value));
        assertThat(stream.available()).isZero();
    }

    @Test
    void sessionsDecodeInOrderAndReencodeToTheSameBytes() throws IOException {
        for (JsonObject session : V2Vectors.section("sessions").toList()) {
            ByteBuffer client = ByteBuffer.wrap(bytes(session, "client"));
            assertThat(V2Codec.decodePreamble(client)).isTrue();
            List<Request> requests = V2Vectors.requests(session, "requests");
            assertThat(decodeAll(Wire.REQUESTS, client)).isEqualTo(requests);

            List<Response> responses = V2Vectors.responses(session, "responses");
            assertThat(decodeAll(Wire.RESPONSES, ByteBuffer.wrap(bytes(session, "server"))))
                    .isEqualTo(responses);

            ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
            V2Codec.writePreamble(clientOut);
            for (Request request : requests) {
                V2Codec.writeRequest(clientOut, request, ProtocolLimits.DEFAULTS);
            }
            assertThat(clientOut.toByteArray()).isEqualTo(bytes(session, "client"));
            ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
            for (Response response : responses) {
                V2Codec.writeResponse(serverOut, response, ProtocolLimits.DEFAULTS);
            }
            assertThat(serverOut.toByteArray()).isEqualTo(bytes(session, "server"));
        }
    }

    private static <T> List<T> decodeAll(Wire<T> wire, ByteBuffer in) throws ProtocolException {
        List<T> values = new ArrayList<>();
        while (wire.decode(in, ProtocolLimits.DEFAULTS) instanceof DecodeResult.Frame<T>(T value)) {
            values.add(value);
        }
        assertThat(in.hasRemaining()).as("bytes left after the last frame").isFalse();
        return values;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidVectorHasItsOutcome(String name, JsonObject v) throws IOException {
        String direction = v.get("direction").getAsString();
        Wire<?> wire = direction.equals("response") ? Wire.RESPONSES : Wire.REQUESTS;
        String message = v.get("message_contains").getAsString();
        switch (v.get("outcome").getAsString()) {
            case "fatal" -> {
                if (direction.equals("preamble")) {
                    assertFatalPreamble(bytes(v, "bytes"), message);
                } else {
                    assertFatal(wire, bytes(v, "bytes"), limits(v), message);
                }
            }
            case "invalid" -> assertRecoverable(wire, bytes(v, "bytes"), limits(v), message);
            case "writer_refuses" -> {
                if (direction.equals("response")) {
                    assertWriterRefuses(
                            Wire.RESPONSES,
                            V2Vectors.response(v.getAsJsonObject("response")),
                            limits(v),
                            message);
                } else {
                    assertWriterRefuses(
                            Wire.REQUESTS,
                            V2Vectors.request(v.getAsJsonObject("request")),
                            limits(v),
                            message);
                }
            }
            default -> throw new IllegalArgumentException("unknown outcome in " + v);
        }
    }

    /** Fatal: ProtocolException, nothing consumed, from the buffer and from the stream. */
    static void assertFatal(Wire<?> wire, byte[] frame, ProtocolLimits limits, String message) {
        ByteBuffer in = ByteBuffer.wrap(frame);
        assertThatThrownBy(() -> wire.decode(in, limits))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(message);
        assertThat(in.position()).isZero();
        assertThatThrownBy(() -> wire.read(new ByteArrayInputStream(frame), limits))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(message);
    }

    private static void assertFatalPreamble(byte[] preamble, String message) {
        ByteBuffer in = ByteBuffer.wrap(preamble);
        assertThatThrownBy(() -> V2Codec.decodePreamble(in))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(message);
        assertThat(in.position()).isZero();
        assertThatThrownBy(() -> V2Codec.readPreamble(new ByteArrayInputStream(preamble)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(message);
    }

    /**
     * Recoverable: Invalid with the message, the whole frame consumed, and the frame after it (a
     * PING or an OK, whichever the direction carries) still decodes: the stream is in step.
     */
    static <T> void assertRecoverable(
            Wire<T> wire, byte[] frame, ProtocolLimits limits, String message) throws IOException {
        byte[] next =
                wire == Wire.REQUESTS
                        ? V2Codec.encode(new Request.Ping(), limits)
                        : V2Codec.encode(new Response.Ok(), limits);
        byte[] both = new byte[frame.length + next.length];
        System.arraycopy(frame, 0, both, 0, frame.length);
        System.arraycopy(next, 0, both, frame.length, next.length);

        ByteBuffer in = ByteBuffer.wrap(both);
        DecodeResult<T> result = wire.decode(in, limits);
        assertThat(result).isInstanceOf(DecodeResult.Invalid.class);
        assertThat(((DecodeResult.Invalid<T>) result).message()).contains(message);
        assertThat(in.position()).isEqualTo(frame.length);
        assertThat(wire.decode(in, limits)).isInstanceOf(DecodeResult.Frame.class);

        ByteArrayInputStream stream = new ByteArrayInputStream(both);
        assertThat(wire.read(stream, limits)).isEqualTo(result);
        assertThat(wire.read(stream, limits)).isInstanceOf(DecodeResult.Frame.class);
    }

    private static <T> void assertWriterRefuses(
            Wire<T> wire, T value, ProtocolLimits limits, String message) {
        assertThatThrownBy(() -> wire.encode(value, limits))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        assertThatThrownBy(() -> wire.encode(value, buffer, limits))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(buffer.position()).isZero();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> wire.write(out, value, limits))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(out.size()).isZero();
    }
}
