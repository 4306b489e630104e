package dbf0.kv.protocol;

import static com.google.common.base.Preconditions.checkArgument;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import java.util.Objects;

/**
 * A protocol v2 response, as a value. Responses carry no request id: they come back in the order of
 * the requests, so the n-th response on a connection answers its n-th request.
 *
 * <p>Sealed like {@link Request}, so a {@code switch} over a response is checked for completeness.
 */
public sealed interface Response {

    /** A GET found its key: here is the value. */
    record Value(ByteArrayWrapper value) implements Response {
        public Value {
            Objects.requireNonNull(value, "value");
        }
    }

    /** A GET found no such key, or a DELETE had nothing to remove. */
    record NotFound() implements Response {}

    /** A SET was applied, a DELETE removed a key, or a PING was received. */
    record Ok() implements Response {}

    /**
     * The request could not be served; the message says why, in words meant for a person. It
     * travels as UTF-8. After a fatal error (see {@link V2Codec}) the server closes the connection
     * right after this reply.
     */
    record Error(String message) implements Response {
        public Error {
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * The replies to a {@link Request.Batch}, one per operation, in the same order. A reply in a
     * batch is a VALUE, NOT_FOUND, OK or ERROR; never another batch. (Today a batch that fails
     * validation is answered by one ERROR for the whole batch, so an ERROR inside a batch is
     * reserved for a single operation failing while it runs.)
     *
     * @param replies the replies (copied; may be empty)
     * @throws IllegalArgumentException if a reply is itself a batch
     */
    record Batch(List<Response> replies) implements Response {
        public Batch {
            replies = List.copyOf(replies);
            for (Response reply : replies) {
                checkArgument(
                        !(reply instanceof Batch), "a batch response cannot hold another batch");
            }
        }
    }

    /**
     * The pairs of a {@link Request.Range}, in key order. {@code more} is true when the server
     * stopped at the request's limit, its own cap or the frame's size with pairs left in the range:
     * ask again after the last key. False means the range is exhausted.
     *
     * @param pairs the pairs (copied; may be empty)
     * @param more true if the range may hold pairs after the last one
     */
    record Range(List<Pair> pairs, boolean more) implements Response {
        public Range {
            pairs = List.copyOf(pairs);
        }
    }

    /**
     * A cluster's slot map: which node serves each range of the 16,384 hash slots, in slot order.
     *
     * @param shards the ranges (copied); slots in none are served by no node
     */
    record Topology(List<Shard> shards) implements Response {
        public Topology {
            shards = List.copyOf(shards);
        }
    }

    /**
     * The slots {@code first} to {@code last} (both included), served by the node at {@code
     * address} ("host:port").
     *
     * @param first the range's first slot
     * @param last its last slot
     * @param address the node that serves them
     */
    record Shard(int first, int last, String address) {
        public Shard {
            Objects.requireNonNull(address, "address");
        }
    }

    /**
     * The request's key lives on another node: its hash slot and that node's address. Nothing of
     * the request was applied; send it again there.
     *
     * @param slot the key's hash slot
     * @param address the owner, "host:port"
     */
    record Moved(int slot, String address) implements Response {
        public Moved {
            Objects.requireNonNull(address, "address");
        }
    }

    /**
     * One key and its value in a {@link Range} reply.
     *
     * @param key the key
     * @param value its value
     */
    record Pair(ByteArrayWrapper key, ByteArrayWrapper value) {
        public Pair {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }
}
