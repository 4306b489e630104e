package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.RepositoryFiles;
import dbf0.common.ByteArrayWrapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

/** The hex examples of docs/protocol.md's v2 part say what the codec does, and its loop works. */
class V2DocsTest {

    /**
     * A table row whose cells hold a backticked hex example: {@code | ... | `00000001 50` | ... |}.
     */
    private static final Pattern ROW = Pattern.compile("^\\|(.*)\\|\\s*$", Pattern.MULTILINE);

    private static final Pattern HEX = Pattern.compile("`([0-9a-f]{8}(?: [0-9a-f]+)*)`");

    private static String section(String heading) throws IOException {
        String doc = Files.readString(RepositoryFiles.path("docs/protocol.md"));
        String v2 = doc.substring(doc.indexOf("\n# Protocol v2"));
        int start = v2.indexOf("\n## " + heading);
        assertThat(start).as("section %s", heading).isPositive();
        int end = v2.indexOf("\n## ", start + 1);
        return v2.substring(start, end < 0 ? v2.length() : end);
    }

    /** Each row with a hex example: the hex, and the row's other cells joined. */
    private static List<String[]> examples(String heading) throws IOException {
        List<String[]> rows = new ArrayList<>();
        Matcher row = ROW.matcher(section(heading));
        while (row.find()) {
            Matcher hex = HEX.matcher(row.group(1));
            if (hex.find()) {
                String others =
                        row.group(1).replace(hex.group(0), "").replaceAll("^[|\\s]+|[|\\s]+$", "");
                rows.add(new String[] {hex.group(1), others});
            }
        }
        assertThat(rows).as("examples in %s", heading).isNotEmpty();
        return rows;
    }

    @Test
    void requestExamplesDecodeAndEncodeBack() throws IOException {
        for (String[] example : examples("Requests")) {
            assertDecodesAndEncodesBack(Wire.REQUESTS, V2Vectors.hex(example[0]));
        }
    }

    @Test
    void responseExamplesDecodeAndEncodeBack() throws IOException {
        for (String[] example : examples("Responses")) {
            assertDecodesAndEncodesBack(Wire.RESPONSES, V2Vectors.hex(example[0]));
        }
    }

    @Test
    void recoverableExamplesGiveTheirMessage() throws IOException {
        for (String[] example : examples("Errors: fatal or recoverable")) {
            DecodeResult<Request> result =
                    V2Codec.decodeRequest(
                            ByteBuffer.wrap(V2Vectors.hex(example[0])), ProtocolLimits.DEFAULTS);
            assertThat(result).as(example[0]).isEqualTo(new DecodeResult.Invalid<>(example[1]));
        }
    }

    private static <T> void assertDecodesAndEncodesBack(Wire<T> wire, byte[] frame)
            throws ProtocolException {
        DecodeResult<T> result = wire.decode(ByteBuffer.wrap(frame), ProtocolLimits.DEFAULTS);
        assertThat(result).as(Hex.encodeHexString(frame)).isInstanceOf(DecodeResult.Frame.class);
        T value = ((DecodeResult.Frame<T>) result).value();
        assertThat(wire.encode(value, ProtocolLimits.DEFAULTS)).isEqualTo(frame);
    }

    /** The event loop of "Using the codec", with a map behind it. */
    @Test
    void theEventLoopOfTheDocsServesAPipeline() throws ProtocolException {
        ByteBuffer buffer = ByteBuffer.allocate(256);
        buffer.put(V2Codec.preamble());
        buffer.put(
                V2Codec.encode(
                        new Request.Set(V2Samples.bytes("k"), V2Samples.bytes("v")),
                        ProtocolLimits.DEFAULTS));
        buffer.put(V2Vectors.hex("00000001 78"));
        buffer.put(V2Codec.encode(new Request.Get(V2Samples.bytes("k")), ProtocolLimits.DEFAULTS));
        buffer.put(V2Vectors.hex("00000005 47")); // the start of one more frame
        buffer.flip();
        assertThat(V2Codec.decodePreamble(buffer)).isTrue();

        MiniServer server = new MiniServer();
        server.serve(buffer, ProtocolLimits.DEFAULTS);
        assertThat(server.replies)
                .containsExactly(
                        new Response.Ok(),
                        new Response.Error("unknown request type 0x78 ('x')"),
                        new Response.Value(V2Samples.bytes("v")));
        assertThat(server.neededBytes).isEqualTo(9);
    }

    private static final class MiniServer {
        final Map<ByteArrayWrapper, ByteArrayWrapper> map = new HashMap<>();
        final List<Response> replies = new ArrayList<>();
        int neededBytes;

        void serve(ByteBuffer buffer, ProtocolLimits limits) throws ProtocolException {
            while (true) {
                switch (V2Codec.decodeRequest(buffer, limits)) {
                    case DecodeResult.Frame<Request>(Request request) -> reply(execute(request));
                    case DecodeResult.Invalid<Request>(String message) ->
                            reply(new Response.Error(message));
                    case DecodeResult.Incomplete<Request>(int needed) -> {
                        growTo(needed);
                        return;
                    }
                }
            }
        }

        private Response execute(Request request) {
            return switch (request) {
                case Request.Get get ->
                        map.containsKey(get.key())
                                ? new Response.Value(map.get(get.key()))
                                : new Response.NotFound();
                case Request.Set set -> {
                    map.put(set.key(), set.value());
                    yield new Response.Ok();
                }
                case Request.Delete delete ->
                        map.remove(delete.key()) != null
                                ? new Response.Ok()
                                : new Response.NotFound();
                case Request.Ping ping -> new Response.Ok();
                case Request.Batch batch ->
                        new Response.Batch(batch.ops().stream().map(this::execute).toList());
                case Request.Range range -> new Response.Error("a hash map keeps no order");
                case Request.Topology topology -> new Response.Error("not a cluster node");
            };
        }

        private void reply(Response response) {
            replies.add(response);
        }

        private void growTo(int needed) {
            neededBytes = needed;
        }
    }
}
