package dbf0.kv.client;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A batch over several servers, as {@link ShardedKeyValueClient#batchAsync} sends it: split into
 * one part per server, each part keeping the caller's relative order, every part sent at once, and
 * the replies put back in the caller's order. Each operation's place in the caller's list is kept
 * beside its part, so putting back is one pass with no search. A batch is atomic per server at
 * most: when one part fails, the whole future fails, and the other parts may have been applied.
 */
final class ShardedBatch {

    private ShardedBatch() {}

    /**
     * Splits {@code ops} by {@code routing}, sends the parts, and merges their replies. A server
     * whose part is empty is sent nothing; with one server the batch goes whole.
     */
    static CompletableFuture<List<Response>> send(ShardRouting routing, List<Request> ops) {
        List<KeyValueClient> shards = routing.shards();
        int n = shards.size();
        if (n == 1) {
            return shards.get(0).batchAsync(ops); // nothing to split or put back
        }
        // where each operation goes, and its index in the caller's list, per server
        List<List<Request>> parts = new ArrayList<>(n);
        List<int[]> positions = new ArrayList<>(n);
        int[] counts = new int[n];
        int[] shardOf = new int[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            shardOf[i] = routing.shardFor(keyOf(ops.get(i)));
            counts[shardOf[i]]++;
        }
        for (int s = 0; s < n; s++) {
            parts.add(new ArrayList<>(counts[s]));
            positions.add(new int[counts[s]]);
        }
        for (int i = 0; i < ops.size(); i++) {
            int s = shardOf[i];
            positions.get(s)[parts.get(s).size()] = i;
            parts.get(s).add(ops.get(i));
        }
        List<CompletableFuture<List<Response>>> sent = new ArrayList<>(n);
        for (int s = 0; s < n; s++) {
            sent.add(
                    parts.get(s).isEmpty()
                            ? CompletableFuture.completedFuture(List.of())
                            : shards.get(s).batchAsync(parts.get(s)));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .thenApply(
                        ignored -> {
                            Response[] merged = new Response[ops.size()];
                            for (int s = 0; s < n; s++) {
                                List<Response> replies =
                                        sent.get(s).join(); // complete: allOf succeeded
                                int[] at = positions.get(s);
                                for (int j = 0; j < at.length; j++) {
                                    merged[at[j]] = replies.get(j);
                                }
                            }
                            return List.of(merged);
                        });
    }

    private static ByteArrayWrapper keyOf(Request op) {
        return switch (op) {
            case Request.Get g -> g.key();
            case Request.Set s -> s.key();
            case Request.Delete d -> d.key();
            default ->
                    throw new IllegalArgumentException(
                            "a batch holds GET, SET and DELETE only, not " + op);
        };
    }
}
