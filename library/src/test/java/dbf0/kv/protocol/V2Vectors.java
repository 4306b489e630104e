package dbf0.kv.protocol;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.codec.DecoderException;
import org.apache.commons.codec.binary.Hex;

/**
 * Reads vectors/protocol-v2.json: hex with spaces between fields, requests and responses as JSON.
 */
final class V2Vectors {

    private static final JsonObject ROOT = read();

    private V2Vectors() {}

    /** The whole file, parsed once (tests only read it). */
    static JsonObject load() {
        return ROOT;
    }

    private static JsonObject read() {
        try (InputStream in = V2Vectors.class.getResourceAsStream("/vectors/protocol-v2.json")) {
            return JsonParser.parseReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .getAsJsonObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<JsonObject> section(String name) {
        return load().getAsJsonArray(name).asList().stream().map(JsonElement::getAsJsonObject);
    }

    /** Hex to bytes; the spaces that separate fields in the file are not bytes. */
    static byte[] hex(String spaced) {
        try {
            return Hex.decodeHex(spaced.replace(" ", ""));
        } catch (DecoderException e) {
            throw new IllegalArgumentException("not hex: " + spaced, e);
        }
    }

    static byte[] bytes(JsonObject vector, String field) {
        return hex(vector.get(field).getAsString());
    }

    /** The limits a vector names ("limits": "small_limits"), else the defaults. */
    static ProtocolLimits limits(JsonObject vector) {
        String name = vector.has("limits") ? vector.get("limits").getAsString() : "default_limits";
        JsonObject l = load().getAsJsonObject(name);
        return new ProtocolLimits(
                l.get("max_key_bytes").getAsInt(),
                l.get("max_value_bytes").getAsInt(),
                l.get("max_frame_bytes").getAsInt(),
                l.get("max_batch_ops").getAsInt());
    }

    static Request request(JsonObject r) {
        return switch (r.get("op").getAsString()) {
            case "GET" -> new Request.Get(wrapper(r, "key"));
            case "SET" -> new Request.Set(wrapper(r, "key"), wrapper(r, "value"));
            case "DELETE" -> new Request.Delete(wrapper(r, "key"));
            case "PING" -> new Request.Ping();
            case "BATCH" -> new Request.Batch(requests(r, "ops"));
            case "RANGE" ->
                    new Request.Range(
                            wrapper(r, "start"),
                            r.get("after_start").getAsBoolean(),
                            wrapper(r, "end"),
                            r.get("limit").getAsInt());
            default -> throw new IllegalArgumentException("unknown op in vector: " + r);
        };
    }

    static List<Request> requests(JsonObject o, String field) {
        return o.getAsJsonArray(field).asList().stream()
                .map(e -> request(e.getAsJsonObject()))
                .toList();
    }

    static Response response(JsonObject r) {
        return switch (r.get("kind").getAsString()) {
            case "VALUE" -> new Response.Value(wrapper(r, "value"));
            case "NOT_FOUND" -> new Response.NotFound();
            case "OK" -> new Response.Ok();
            case "ERROR" -> new Response.Error(r.get("message").getAsString());
            case "BATCH" -> new Response.Batch(responses(r, "replies"));
            case "RANGE" ->
                    new Response.Range(
                            r.getAsJsonArray("pairs").asList().stream()
                                    .map(JsonElement::getAsJsonObject)
                                    .map(
                                            p ->
                                                    new Response.Pair(
                                                            wrapper(p, "key"), wrapper(p, "value")))
                                    .toList(),
                            r.get("more").getAsBoolean());
            default -> throw new IllegalArgumentException("unknown kind in vector: " + r);
        };
    }

    static List<Response> responses(JsonObject o, String field) {
        return o.getAsJsonArray(field).asList().stream()
                .map(e -> response(e.getAsJsonObject()))
                .toList();
    }

    private static ByteArrayWrapper wrapper(JsonObject o, String field) {
        return new ByteArrayWrapper(bytes(o, field));
    }
}
