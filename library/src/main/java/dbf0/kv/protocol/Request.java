package dbf0.kv.protocol;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import java.util.Objects;

/**
 * A protocol v2 request, as a value: what the client asks, independent of its bytes. {@link
 * V2Codec} turns it into a frame and back; every request gets exactly one {@link Response}.
 *
 * <p>The interface is sealed, so a {@code switch} over a request must handle every kind and the
 * compiler says so when a new kind is added. The records compare by content (keys and values are
 * {@link ByteArrayWrapper}s), which is what the tests rely on.
 */
public sealed interface Request {

    /** Read a key. Answered by {@link Response.Value} or {@link Response.NotFound}. */
    record Get(ByteArrayWrapper key) implements Request {
        public Get {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Store a value under a key. Answered by {@link Response.Ok} once it is applied. */
    record Set(ByteArrayWrapper key, ByteArrayWrapper value) implements Request {
        public Set {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Remove a key. Answered by {@link Response.Ok} if a key was removed, {@link Response.NotFound}
     * if there was none.
     */
    record Delete(ByteArrayWrapper key) implements Request {
        public Delete {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Ask whether the server is there, touching no data. Answered by {@link Response.Ok}. */
    record Ping() implements Request {}

    /**
     * Ask a cluster node for the cluster's slot map. Answered by {@link Response.Topology}, or an
     * ERROR from a server that is not a cluster node.
     */
    record Topology() implements Request {}

    /**
     * Several GET, SET and DELETE operations in one frame, applied in order; answered by one {@link
     * Response.Batch} holding a reply per operation, in the same order. A batch cannot hold a PING
     * or another batch: one level keeps the replies a flat list that lines up with the ops.
     *
     * @param ops the operations (copied; may be empty)
     * @throws IllegalArgumentException if an operation is a PING or a batch
     */
    record Batch(List<Request> ops) implements Request {
        public Batch {
            ops = List.copyOf(ops);
            for (Request op : ops) {
                checkArgument(
                        op instanceof Get || op instanceof Set || op instanceof Delete,
                        "a batch holds only GET, SET and DELETE operations, not %s",
                        op);
            }
        }
    }

    /**
     * Up to {@code limit} pairs with keys from {@code start} up to (not including) {@code end}, in
     * ascending order of the keys' unsigned bytes; answered by one {@link Response.Range}, or an
     * ERROR from a store that keeps no order. To read on where a reply stopped, ask again from its
     * last key with {@code afterStart} set.
     *
     * @param start the first key of the range (the empty key: from the smallest)
     * @param afterStart true to leave {@code start} itself out
     * @param end the key past the range, or the empty key for no end (no key sorts before the empty
     *     key, so it cannot end a range that holds anything)
     * @param limit the most pairs wanted, at least 1; the server may answer fewer
     */
    record Range(ByteArrayWrapper start, boolean afterStart, ByteArrayWrapper end, int limit)
            implements Request {
        public Range {
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(end, "end");
            checkArgument(limit >= 1, "a RANGE limit is at least 1, got %s", limit);
        }
    }
}
