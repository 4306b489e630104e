/**
 * Layer 3, the server side of the socket framework. Chapter 1: {@link dbf0.base.server.BaseServer},
 * a thread per connection from a pool (or a virtual thread each). Chapter 2: {@link
 * dbf0.base.server.EventLoopServer}, selector event loops, and {@link
 * dbf0.base.server.ByteSession}, a protocol as bytes in and replies out, so every model speaks
 * every protocol.
 */
package dbf0.base.server;
