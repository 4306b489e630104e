package dbf0.kv.client;

import dbf0.common.ByteArrayWrapper;
import java.util.List;

/**
 * Where {@link ShardedKeyValueClient} sends each key, as one immutable value: the connections, one
 * per server in placement order, and in cluster mode the slot map they follow. A new slot map makes
 * a new routing, swapped in whole, so that a request, or every part of a batch, is placed by one
 * consistent routing even while another thread follows a MOVED.
 *
 * @param shards the connections, numbered as placement numbers the servers
 * @param slots the cluster's slot map, or null to place by jump hash over {@code shards}
 */
record ShardRouting(List<KeyValueClient> shards, SlotPlacement slots) {

    /** The number of the server {@code key} lives on. */
    int shardFor(ByteArrayWrapper key) {
        return slots == null
                ? ShardedKeyValueClient.shardFor(key, shards.size())
                : slots.nodeFor(key.getArray());
    }

    /** The connection to the server {@code key} lives on. */
    KeyValueClient shard(ByteArrayWrapper key) {
        return shards.get(shardFor(key));
    }
}
