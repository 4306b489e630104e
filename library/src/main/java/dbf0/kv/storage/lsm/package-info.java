/**
 * Chapter 6, the disk: a log-structured merge tree behind the same {@link dbf0.kv.storage.Store} as
 * the maps, so that every protocol, server model, benchmark and checker runs on it unchanged.
 * Writes go to the write-ahead log and a sorted memtable; a full memtable is written to an
 * immutable sorted table; compaction merges tables level by level; reads look from the newest data
 * to the oldest. See docs/6-disk.md.
 */
package dbf0.kv.storage.lsm;
