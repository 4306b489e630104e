/**
 * Layer 3, the server. Chapter 1: {@link dbf0.kv.server.KeyValueServer} picks the server model, and
 * on the thread-per-connection models a v1 request reads top to bottom in {@code
 * BlockingKeyValueServer}. Chapter 2: the sessions ({@code ProtocolSession} tells the protocols
 * apart by the first byte; {@code V1Session}, {@code V2Session}, {@code RespSession}).
 */
package dbf0.kv.server;
