/**
 * Replication: each shard of a cluster is a Raft group on Apache Ratis, and every member's store is
 * the group's state machine. A write becomes a log entry (a {@link dbf0.kv.replication.WriteBatch}
 * of the writes of one flush), Ratis replicates it and commits it once a majority holds it, and
 * every member applies it to its own store in log order ({@link
 * dbf0.kv.replication.StoreStateMachine}); the leader answers the client after that. Reads on the
 * leader wait for a ReadIndex ({@link dbf0.kv.replication.ReadBarrier}). {@link
 * dbf0.kv.replication.RaftReplication} fills the library's {@link
 * dbf0.kv.server.cluster.Replication} hook; docs/8-replication.md is the chapter.
 */
package dbf0.kv.replication;
