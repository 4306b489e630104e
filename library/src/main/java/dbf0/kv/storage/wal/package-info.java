/**
 * Layer 2, chapter 3: the write-ahead log (WAL). {@link dbf0.kv.storage.wal.WalStore} composes one
 * file per mechanism: recovery, group commit under {@code always}, combining under {@code interval}
 * and {@code never}, and rewrite. The record format is in docs/formats.md.
 */
package dbf0.kv.storage.wal;
