package dbf0.kv.protocol;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the two replies only a cluster node sends: MOVED (a key's slot and its owner) and TOPOLOGY
 * (the slot map as ranges). Every number is checked before it is used: a slot is below 16,384, a
 * range's first slot is not past its last, an address is at most {@link #MAX_ADDRESS_BYTES} of
 * ASCII, and a map holds at most 16,384 ranges (one per slot), so no list is sized from a number a
 * peer sent without that bound.
 */
final class V2ClusterReplies {

    /** The longest "host:port" accepted: a DNS name (253) and a port. */
    static final int MAX_ADDRESS_BYTES = 260;

    private static final int SLOTS = 16384;

    private V2ClusterReplies() {}

    static Response parse(byte type, ByteBuffer body) {
        if (type == V2Codec.MOVED) {
            return new Response.Moved(slot(body, "MOVED slot"), address(body));
        }
        int count = V2Fields.u32(body, "TOPOLOGY count");
        if (count < 0 || count > SLOTS) {
            throw new MalformedFrameException(
                    "TOPOLOGY of "
                            + Integer.toUnsignedLong(count)
                            + " ranges: a map has at most "
                            + SLOTS);
        }
        List<Response.Shard> shards = new ArrayList<>(Math.min(count, body.remaining() / 12));
        for (int i = 0; i < count; i++) {
            int first = slot(body, "TOPOLOGY first slot");
            int last = slot(body, "TOPOLOGY last slot");
            if (last < first) {
                throw new MalformedFrameException(
                        "TOPOLOGY range " + first + "-" + last + " ends before it starts");
            }
            shards.add(new Response.Shard(first, last, address(body)));
        }
        return new Response.Topology(shards);
    }

    private static int slot(ByteBuffer body, String what) {
        int slot = V2Fields.u32(body, what);
        if (slot < 0 || slot >= SLOTS) {
            throw new MalformedFrameException(
                    what + " " + Integer.toUnsignedLong(slot) + " is not below " + SLOTS);
        }
        return slot;
    }

    private static String address(ByteBuffer body) {
        return new String(V2Fields.field(body, "address", MAX_ADDRESS_BYTES).getArray(), US_ASCII);
    }
}
