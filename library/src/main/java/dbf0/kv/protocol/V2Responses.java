package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.ERROR;
import static dbf0.kv.protocol.V2Codec.NOT_FOUND;
import static dbf0.kv.protocol.V2Codec.OK;
import static dbf0.kv.protocol.V2Codec.RANGE;
import static dbf0.kv.protocol.V2Codec.VALUE;
import static dbf0.kv.protocol.V2Fields.LENGTH_BYTES;
import static dbf0.kv.protocol.V2Fields.field;
import static dbf0.kv.protocol.V2Fields.keyField;
import static dbf0.kv.protocol.V2Fields.putField;
import static dbf0.kv.protocol.V2Fields.putU32;
import static dbf0.kv.protocol.V2Fields.valueField;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

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
            case Response.Moved moved -> 1 + 4 + LENGTH_BYTES + moved.address().length();
            case Response.Topology topology -> {
                long size = 1 + LENGTH_BYTES;
                for (Response.Shard shard : topology.shards()) {
                    size += 4 + 4 + LENGTH_BYTES + shard.address().length();
                }
                yield size;
            }
            case Response.Batch batch -> {
                long size = V2Batches.headerSize(batch.replies().size(), limits);
                for (Response reply : batch.replies()) {
                    size += bodySize(reply, limits);
                }
                yield size;
            }
            case Response.Range range -> {
                if (limits != null && range.pairs().size() > limits.maxBatchOps()) {
                    throw new IllegalArgumentException(
                            "RANGE reply of "
                                    + range.pairs().size()
                                    + " pairs exceeds the "
                                    + limits.maxBatchOps()
                                    + "-pair limit");
                }
                long size = 1 + 1 + LENGTH_BYTES;
                for (Response.Pair pair : range.pairs()) {
                    size += pairSize(pair, limits);
                }
                yield size;
            }
        };
    }

    /**
     * The bytes one pair takes in a RANGE reply: its key and value fields. Checks the limits unless
     * {@code limits} is null.
     */
    static long pairSize(Response.Pair pair, ProtocolLimits limits) {
        return keyField(pair.key(), limits) + valueField(pair.value(), limits);
    }

    /**
     * A RANGE reply's fields. The count is checked like a batch's: against {@code maxBatchOps}, and
     * the list is never sized beyond what the body can hold (a pair takes at least 8 bytes).
     */
    private static Response.Range parseRange(ByteBuffer body, ProtocolLimits limits) {
        if (!body.hasRemaining()) {
            throw new MalformedFrameException("the frame ends before the RANGE reply's more flag");
        }
        byte more = body.get();
        if (more != 0 && more != 1) {
            throw new MalformedFrameException(
                    String.format("a RANGE reply's more flag is 0 or 1, not 0x%02x", more));
        }
        int count = V2Fields.u32(body, "RANGE count");
        if (count < 0 || count > limits.maxBatchOps()) {
            throw new MalformedFrameException(
                    "RANGE reply of "
                            + Integer.toUnsignedLong(count)
                            + " pairs exceeds the "
                            + limits.maxBatchOps()
                            + "-pair limit");
        }
        List<Response.Pair> pairs =
                new ArrayList<>(Math.min(count, body.remaining() / (2 * LENGTH_BYTES)));
        for (int i = 0; i < count; i++) {
            pairs.add(
                    new Response.Pair(
                            field(body, "key", limits.maxKeyBytes()),
                            field(body, "value", limits.maxValueBytes())));
        }
        return new Response.Range(pairs, more == 1);
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
            case Response.Moved moved -> {
                out.put(V2Codec.MOVED);
                putU32(out, moved.slot());
                putField(out, moved.address().getBytes(US_ASCII));
            }
            case Response.Topology topology -> {
                out.put(V2Codec.TOPOLOGY);
                putU32(out, topology.shards().size());
                for (Response.Shard shard : topology.shards()) {
                    putU32(out, shard.first());
                    putU32(out, shard.last());
                    putField(out, shard.address().getBytes(US_ASCII));
                }
            }
            case Response.Range range -> {
                out.put(RANGE);
                out.put(range.more() ? (byte) 1 : 0);
                putU32(out, range.pairs().size());
                for (Response.Pair pair : range.pairs()) {
                    putField(out, pair.key().getArray());
                    putField(out, pair.value().getArray());
                }
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
        if (type == V2Codec.MOVED || type == V2Codec.TOPOLOGY) {
            Response cluster = V2ClusterReplies.parse(type, body);
            V2Fields.requireEnd(body, type);
            return cluster;
        }
        if (type == RANGE) {
            Response range = parseRange(body, limits);
            V2Fields.requireEnd(body, type);
            return range;
        }
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
            case BATCH, RANGE, V2Codec.MOVED, V2Codec.TOPOLOGY ->
                    throw new MalformedFrameException(
                            "a " + V2Fields.typeName(type) + " cannot be inside a batch");
            default ->
                    throw new MalformedFrameException(
                            "unknown response type " + V2Fields.describe(type));
        };
    }
}
