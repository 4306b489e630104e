/**
 * Layer 5, the programs' harness. Chapter 1: {@link dbf0.kv.bench.Benchmark}, the seed's 7-argument
 * benchmark, and {@link dbf0.kv.bench.KeyValueConnector}, its v1 connector. Chapter 2 and 5: the
 * other connectors (v2, selector, sharded, the library client), made by {@code ConnectorFactory}.
 */
package dbf0.kv.bench;
