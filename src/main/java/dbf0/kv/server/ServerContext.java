package dbf0.kv.server;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.wal.DurableStore;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * What every connection's session shares: the store, the limits, and the few server-wide figures
 * that commands like Redis's INFO report.
 */
final class ServerContext {

  final Store store;
  final ProtocolLimits limits;
  final ServerOptions options;
  /** The store again when it keeps a write-ahead log (INFO persistence, BGREWRITEAOF), else null. */
  final DurableStore durable;
  final long startNanos = System.nanoTime();
  final LongAdder commandsProcessed = new LongAdder();
  final LongAdder connectionsReceived = new LongAdder();
  private volatile IntSupplier openConnections = () -> 0;
  private volatile int port;

  ServerContext(Store store, ServerOptions options) {
    this(store, options, null);
  }

  ServerContext(Store store, ServerOptions options, DurableStore durable) {
    this.store = store;
    this.durable = durable;
    this.options = options;
    this.limits = options.limits();
  }

  void bound(int boundPort, IntSupplier open) {
    this.port = boundPort;
    this.openConnections = open;
  }

  int openConnections() {
    return openConnections.getAsInt();
  }

  int port() {
    return port;
  }

  long uptimeSeconds() {
    return (System.nanoTime() - startNanos) / 1_000_000_000L;
  }
}
