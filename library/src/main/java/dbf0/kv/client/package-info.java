/**
 * Layer 3, the client side for library users. Chapter 1: {@link dbf0.kv.client.V1Client}, one
 * operation per connection. Chapter 2: {@link dbf0.kv.client.KeyValueClient}, v2 with blocking
 * calls and pipelined futures. Chapter 5: {@link dbf0.kv.client.ShardedKeyValueClient}.
 */
package dbf0.kv.client;
