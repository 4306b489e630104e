/**
 * Layer 3: a server that is one node of a Redis-protocol cluster. Read in order: {@link
 * dbf0.kv.server.cluster.ClusterState} (this node's slot map, kept on disk, and the locks that keep
 * a moving slot's keys safe), {@link dbf0.kv.server.cluster.SlotRouting} (MOVED, ASK, CROSSSLOT),
 * {@link dbf0.kv.server.cluster.ClusterCommand} and {@link dbf0.kv.server.cluster.ClusterReplies}
 * (CLUSTER ...), {@link dbf0.kv.server.cluster.SetSlot}, {@link dbf0.kv.server.cluster.Migrate} and
 * {@link dbf0.kv.server.cluster.Restore} (moving keys), {@link dbf0.kv.server.cluster.PeerLink} and
 * {@link dbf0.kv.server.cluster.PeerIds} (the little a node asks its peers, in place of Redis's
 * gossip bus).
 */
package dbf0.kv.server.cluster;
