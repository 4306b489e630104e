/**
 * Layer 3, chapter 2: one class per Redis command that dbf0 answers, so that redis-cli,
 * redis-benchmark and Redis's client libraries work against it.
 */
package dbf0.kv.server.resp;
