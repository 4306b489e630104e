package dbf0.kv.protocol;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.DELETE;
import static dbf0.kv.protocol.V2Codec.GET;
import static dbf0.kv.protocol.V2Codec.PING;
import static dbf0.kv.protocol.V2Codec.RANGE;
import static dbf0.kv.protocol.V2Codec.SET;
import static dbf0.kv.protocol.V2Fields.describe;
import static dbf0.kv.protocol.V2Fields.field;
import static dbf0.kv.protocol.V2Fields.keyField;
import static dbf0.kv.protocol.V2Fields.putField;
import static dbf0.kv.protocol.V2Fields.putU32;
import static dbf0.kv.protocol.V2Fields.typeName;
import static dbf0.kv.protocol.V2Fields.valueField;

import java.nio.ByteBuffer;

/** A v2 request's body, client to server: its size, its bytes, and back to a {@link Request}. */
final class V2Requests {

    private static final Request.Ping PING_REQUEST = new Request.Ping();
    private static final Request.Topology TOPOLOGY_REQUEST = new Request.Topology();

    /** RANGE's flag bit: leave the start key itself out. The other bits must be zero. */
    static final byte AFTER_START = 0x01;

    private V2Requests() {}

    /**
     * RANGE's fields. A limit of 0 asks for nothing and is refused; one of 2^31 or more means "as
     * many as you will give", and the server caps it anyway.
     */
    private static Request.Range parseRange(ByteBuffer body, ProtocolLimits limits) {
        if (!body.hasRemaining()) {
            throw new MalformedFrameException("the frame ends before the RANGE flags");
        }
        byte flags = body.get();
        if ((flags & ~AFTER_START) != 0) {
            throw new MalformedFrameException(
                    String.format("unknown RANGE flags 0x%02x (only 0x01 is defined)", flags));
        }
        long limit = Integer.toUnsignedLong(V2Fields.u32(body, "RANGE limit"));
        if (limit == 0) {
            throw new MalformedFrameException("a RANGE limit of 0: ask for at least 1 pair");
        }
        return new Request.Range(
                field(body, "start key", limits.maxKeyBytes()),
                flags == AFTER_START,
                field(body, "end key", limits.maxKeyBytes()),
                (int) Math.min(limit, Integer.MAX_VALUE));
    }

    /** The body size as a long (a huge batch can pass 2 GiB); checks the limits unless null. */
    static long bodySize(Request request, ProtocolLimits limits) {
        return switch (request) {
            case Request.Get get -> 1 + keyField(get.key(), limits);
            case Request.Set set ->
                    1 + keyField(set.key(), limits) + valueField(set.value(), limits);
            case Request.Delete delete -> 1 + keyField(delete.key(), limits);
            case Request.Ping ping -> 1;
            case Request.Topology topology -> 1;
            case Request.Range range ->
                    1 + 1 + 4 + keyField(range.start(), limits) + keyField(range.end(), limits);
            case Request.Batch batch -> {
                long size = V2Batches.headerSize(batch.ops().size(), limits);
                for (Request op : batch.ops()) {
                    size += bodySize(op, limits);
                }
                yield size;
            }
        };
    }

    /** Writes the body; the caller has checked the limits and the room. */
    static void put(ByteBuffer out, Request request) {
        switch (request) {
            case Request.Get get -> {
                out.put(GET);
                putField(out, get.key().getArray());
            }
            case Request.Set set -> {
                out.put(SET);
                putField(out, set.key().getArray());
                putField(out, set.value().getArray());
            }
            case Request.Delete delete -> {
                out.put(DELETE);
                putField(out, delete.key().getArray());
            }
            case Request.Ping ping -> out.put(PING);
            case Request.Topology topology -> out.put(V2Codec.TOPOLOGY);
            case Request.Range range -> {
                out.put(RANGE);
                out.put(range.afterStart() ? AFTER_START : 0);
                putU32(out, range.limit());
                putField(out, range.start().getArray());
                putField(out, range.end().getArray());
            }
            case Request.Batch batch -> {
                out.put(BATCH);
                putU32(out, batch.ops().size());
                for (Request op : batch.ops()) {
                    put(out, op);
                }
            }
        }
    }

    /** Parses one whole body; throws {@link MalformedFrameException} for anything wrong in it. */
    static Request parse(ByteBuffer body, ProtocolLimits limits) {
        byte type = V2Fields.firstType(body);
        Request request =
                switch (type) {
                    case PING -> PING_REQUEST;
                    case V2Codec.TOPOLOGY -> TOPOLOGY_REQUEST;
                    case RANGE -> parseRange(body, limits);
                    case BATCH ->
                            new Request.Batch(
                                    V2Batches.parse(
                                            body,
                                            limits,
                                            V2Batches.MIN_OP_BYTES,
                                            "op",
                                            "ops",
                                            V2Requests::parseOperation));
                    default -> parseOperation(type, body, limits);
                };
        V2Fields.requireEnd(body, type);
        return request;
    }

    /** GET, SET or DELETE: the requests that may stand alone or in a batch. */
    private static Request parseOperation(byte type, ByteBuffer body, ProtocolLimits limits) {
        return switch (type) {
            case GET -> new Request.Get(field(body, "key", limits.maxKeyBytes()));
            case SET ->
                    new Request.Set(
                            field(body, "key", limits.maxKeyBytes()),
                            field(body, "value", limits.maxValueBytes()));
            case DELETE -> new Request.Delete(field(body, "key", limits.maxKeyBytes()));
            case PING, BATCH, RANGE, V2Codec.TOPOLOGY ->
                    throw new MalformedFrameException(
                            "a " + typeName(type) + " cannot be inside a batch");
            default -> throw new MalformedFrameException("unknown request type " + describe(type));
        };
    }
}
