package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.ERROR;
import static dbf0.kv.protocol.V2Codec.NOT_FOUND;
import static dbf0.kv.protocol.V2Codec.OK;
import static dbf0.kv.protocol.V2Codec.VALUE;
import static dbf0.kv.protocol.V2Fields.LENGTH_BYTES;
import static dbf0.kv.protocol.V2Fields.field;
import static dbf0.kv.protocol.V2Fields.putField;
import static dbf0.kv.protocol.V2Fields.putU32;
import static dbf0.kv.protocol.V2Fields.valueField;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;

/** A v2 response's body, server to client: its size, its bytes, and back to a {@link Response}. */
final class V2Responses {

    private static final Response.NotFound NOT_FOUND_RESPONSE = new Response.NotFound();
    private static final Response.Ok OK_RESPONSE = new Response.Ok();

    private V2Responses() {}

    /** The body size as a long (a huge batch can pass 2 GiB); checks the limits unless null. */
    static long bodySize(Response response, ProtocolLimits limits) {
        return switch (response) {
            case Response.Value value -> 1 + valueField(value.value(), limits);
            case Response.NotFound notFound -> 1;
            case Response.Ok ok -> 1;
            case Response.Error error -> 1 + LENGTH_BYTES + error.message().getBytes(UTF_8).length;
            case Response.Batch batch -> {
                long size = V2Batches.headerSize(batch.replies().size(), limits);
                for (Response reply : batch.replies()) {
                    size += bodySize(reply, limits);
                }
                yield size;
            }
        };
    }

    /** Writes the body; the caller has checked the limits and the room. */
    static void put(ByteBuffer out, Response response) {
        switch (response) {
            case Response.Value value -> {
                out.put(VALUE);
                putField(out, value.value().getArray());
            }
            case Response.NotFound notFound -> out.put(NOT_FOUND);
            case Response.Ok ok -> out.put(OK);
            case Response.Error error -> {
                out.put(ERROR);
                putField(out, error.message().getBytes(UTF_8));
            }
            case Response.Batch batch -> {
                out.put(BATCH);
                putU32(out, batch.replies().size());
                for (Response reply : batch.replies()) {
                    put(out, reply);
                }
            }
        }
    }

    /** Parses one whole body; throws {@link MalformedFrameException} for anything wrong in it. */
    static Response parse(ByteBuffer body, ProtocolLimits limits) {
        byte type = V2Fields.firstType(body);
        Response response =
                type == BATCH
                        ? new Response.Batch(
                                V2Batches.parse(
                                        body,
                                        limits,
                                        V2Batches.MIN_REPLY_BYTES,
                                        "reply",
                                        "replies",
                                        V2Responses::parseReply))
                        : parseReply(type, body, limits);
        V2Fields.requireEnd(body, type);
        return response;
    }

    /** VALUE, NOT_FOUND, OK or ERROR: the responses that may stand alone or in a batch. */
    private static Response parseReply(byte type, ByteBuffer body, ProtocolLimits limits) {
        return switch (type) {
            case VALUE -> new Response.Value(field(body, "value", limits.maxValueBytes()));
            case NOT_FOUND -> NOT_FOUND_RESPONSE;
            case OK -> OK_RESPONSE;
            // Malformed UTF-8 becomes U+FFFD: a garbled message is still worth showing.
            case ERROR ->
                    new Response.Error(
                            new String(
                                    field(body, "error message", limits.maxFrameBytes()).getArray(),
                                    UTF_8));
            case BATCH -> throw new MalformedFrameException("a BATCH cannot be inside a batch");
            default ->
                    throw new MalformedFrameException(
                            "unknown response type " + V2Fields.describe(type));
        };
    }
}
