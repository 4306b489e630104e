/**
 * Layer 2: Redis Cluster's model of a keyspace, with no sockets in it. Read in order: {@link
 * dbf0.kv.cluster.HashSlots} (which of the 16,384 slots a key is in), {@link
 * dbf0.kv.cluster.ClusterNode} (a node: its id and address), {@link dbf0.kv.cluster.SlotMap} (which
 * node owns each slot, and which slots are moving), {@link dbf0.kv.cluster.NodesFile} (the map on
 * disk).
 */
package dbf0.kv.cluster;
