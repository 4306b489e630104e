/**
 * Layer 2: pure encode and decode, no sockets. Chapter 1: {@link dbf0.kv.protocol.V1Codec}, the
 * seed's bytes. Chapter 2: {@link dbf0.kv.protocol.V2Codec} (persistent, pipelined, batched) and
 * {@link dbf0.kv.protocol.RespCodec} (Redis's RESP2/3). Byte by byte: docs/protocol.md.
 */
package dbf0.kv.protocol;
