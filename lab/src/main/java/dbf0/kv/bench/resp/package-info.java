/**
 * Layer 5: {@link dbf0.kv.bench.resp.RespLoad}, a RESP load generator for comparisons that
 * redis-benchmark cannot make, such as a write followed by Redis's {@code WAIT} (chapter 8, the
 * cost of copies). The same client runs against Redis and dbf0, so that both sides of a comparison
 * pay for the same client.
 */
package dbf0.kv.bench.resp;
