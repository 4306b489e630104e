/**
 * Chapter 6's benchmark, {@code dbf0 disk-bench}: the 2020 project's read-write benchmark (same
 * arguments, same JSON line every interval) run in one JVM against an embedded engine, so that
 * dbf0's LSM store, RocksDB and the logged map go through the very same harness.
 *
 * <p>Read in this order: {@link dbf0.kv.bench.disk.Mix} (what the threads do), {@link
 * dbf0.kv.bench.disk.DiskEngine} and its adapters (one file per engine), {@link
 * dbf0.kv.bench.disk.KeyChooser} and {@link dbf0.kv.bench.disk.RecentKeys} (which key), {@link
 * dbf0.kv.bench.disk.OpCounters} (what an interval saw), {@link dbf0.kv.bench.disk.IntervalLine}
 * (the JSON line), {@link dbf0.kv.bench.disk.DiskBenchRun} (the phases) and {@link
 * dbf0.kv.bench.disk.DiskBench} (the command line).
 */
package dbf0.kv.bench.disk;
