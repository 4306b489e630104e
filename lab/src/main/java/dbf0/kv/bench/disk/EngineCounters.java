package dbf0.kv.bench.disk;

/**
 * An engine's running totals since it opened, as each engine counts them (see the adapters). The
 * benchmark subtracts two of these to get an interval's figures.
 *
 * @param bytesWritten bytes the engine wrote to disk: its log, and the tables of flushes and
 *     compactions (or its pages and chunks); -1 if the engine does not count them
 * @param blocksRead data blocks read from disk (block cache misses), -1 if the engine has none
 * @param stallNanos time writers waited for the engine to catch up (slowed or stopped writes)
 * @param fsyncs forces of the write-ahead log
 */
public record EngineCounters(long bytesWritten, long blocksRead, long stallNanos, long fsyncs) {}
