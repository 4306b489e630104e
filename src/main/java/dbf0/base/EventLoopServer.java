package dbf0.base;

import dbf0.common.RateLimitedLog;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nio} server model: a few event-loop threads, each with a {@link Selector}, serve
 * every connection without blocking. An acceptor thread hands new connections to the loops in
 * turn. Thousands of idle or slow connections cost memory, not threads.
 *
 * <p>No client can stall a loop: reads and writes never block, and a client that stops reading
 * its replies is simply not read from any more once 1 MiB of replies waits for it
 * (backpressure), so its pipeline cannot grow the server's memory without bound. Connections
 * idle for longer than the idle timeout are closed; past the connection limit, new connections
 * are closed at once.
 */
public final class EventLoopServer implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(EventLoopServer.class);
  private static final int INITIAL_BUFFER = 4096;
  /** Stop reading from a connection while this many reply bytes wait to be sent to it. */
  static final int HIGH_WATER_MARK = 1 << 20;

  private final String name;
  private final InetSocketAddress bindAddress;
  private final int loopCount;
  private final Supplier<ByteSession> sessions;
  private final int maxConnections;
  private final long idleTimeoutNanos;
  private final RateLimitedLog connectionLog = new RateLimitedLog(LOG, 20);
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean closing;
  private volatile int backlog = 1024;
  private ServerSocketChannel serverChannel;
  private Loop[] loops;
  private Thread acceptor;

  /**
   * @param loops event-loop threads (the {@code threads} setting of the server)
   * @param sessions makes the protocol session of each new connection
   */
  public EventLoopServer(String name, InetSocketAddress bindAddress, int loops, Supplier<ByteSession> sessions,
      int maxConnections, Duration idleTimeout) {
    if (loops < 1) {
      throw new IllegalArgumentException("loops must be at least 1, got " + loops);
    }
    this.name = name;
    this.bindAddress = bindAddress;
    this.loopCount = loops;
    this.sessions = sessions;
    this.maxConnections = maxConnections;
    this.idleTimeoutNanos = idleTimeout.toNanos();
  }

  /** The kernel's queue of connections not yet accepted. Set before start. */
  public void setBacklog(int backlog) {
    this.backlog = backlog;
  }

  public synchronized void start() throws IOException {
    if (serverChannel != null) {
      throw new IllegalStateException(name + " already started");
    }
    ServerSocketChannel channel = ServerSocketChannel.open();
    channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    channel.bind(bindAddress, backlog);
    serverChannel = channel;
    loops = new Loop[loopCount];
    for (int i = 0; i < loopCount; i++) {
      loops[i] = new Loop(Selector.open());
      loops[i].thread = Thread.ofPlatform().name(name + "-loop-" + i).daemon().start(loops[i]);
    }
    acceptor = Thread.ofPlatform().name(name + "-accept").daemon().start(this::acceptLoop);
  }

  public InetSocketAddress getLocalAddress() {
    try {
      return (InetSocketAddress) serverChannel.getLocalAddress();
    } catch (IOException e) {
      throw new IllegalStateException(name + " not bound", e);
    }
  }

  public long getConnectionsHandled() {
    return handled.get();
  }

  public long getConnectionsFailed() {
    return failed.get();
  }

  public int getOpenConnections() {
    return open.get();
  }

  private void acceptLoop() {
    int next = 0;
    while (!closing) {
      SocketChannel channel;
      try {
        channel = serverChannel.accept();
      } catch (IOException e) {
        if (!closing) {
          connectionLog.warn("{}: accept failed: {}", name, e.toString());
        }
        continue;
      }
      if (open.incrementAndGet() > maxConnections) {
        open.decrementAndGet();
        handled.incrementAndGet();
        failed.incrementAndGet();
        connectionLog.warn("{}: refused a connection: the limit of {} connections is reached", name, maxConnections);
        closeQuietly(channel);
        continue;
      }
      loops[next].add(channel);
      next = (next + 1) % loops.length;
    }
  }

  /** One connection's state, owned by one loop thread. */
  private final class Connection {
    final SocketChannel channel;
    final ByteSession session = sessions.get();
    final InputBuffer input = new InputBuffer(INITIAL_BUFFER);
    final OutputBuffer output = new OutputBuffer(INITIAL_BUFFER);
    SelectionKey key;
    long lastActive = System.nanoTime();
    boolean closeAfterWrite;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }
  }

  private final class Loop implements Runnable {
    final Selector selector;
    final Queue<SocketChannel> incoming = new ConcurrentLinkedQueue<>();
    Thread thread;
    long lastIdleCheck = System.nanoTime();

    Loop(Selector selector) {
      this.selector = selector;
    }

    void add(SocketChannel channel) {
      incoming.add(channel);
      selector.wakeup();
    }

    @Override
    public void run() {
      try {
        while (!closing) {
          // select(Consumer) hands each ready key straight to handle(): no selected-key set to
          // fill, iterate and clear on every pass (that iteration showed up in profiles).
          selector.select(this::handle, idleCheckMillis());
          registerIncoming();
          closeIdle();
        }
      } catch (IOException | RuntimeException e) {
        if (!closing) {
          LOG.error("{}: event loop failed: {}", name, e.toString());
        }
      } finally {
        for (SelectionKey key : selector.keys()) {
          if (key.attachment() instanceof Connection c) {
            close(c);
          }
        }
        SocketChannel pending;
        while ((pending = incoming.poll()) != null) {
          closeQuietly(pending);
          open.decrementAndGet();
        }
        try {
          selector.close();
        } catch (IOException ignored) {
          // shutting down
        }
      }
    }

    private void registerIncoming() {
      SocketChannel channel;
      while ((channel = incoming.poll()) != null) {
        Connection c = new Connection(channel);
        try {
          channel.configureBlocking(false);
          channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
          c.key = channel.register(selector, SelectionKey.OP_READ, c);
        } catch (IOException e) {
          fail(c, e);
        }
      }
    }

    private void handle(SelectionKey key) {
      Connection c = (Connection) key.attachment();
      try {
        if (key.isWritable()) {
          flush(c);
        }
        if (key.isValid() && key.isReadable()) {
          read(c);
        }
      } catch (IOException | RuntimeException e) {
        fail(c, e);
      }
    }

    private void read(Connection c) throws IOException {
      while (true) {
        ByteBuffer buffer = c.input.forWriting(c.session.bytesNeeded());
        int room = buffer.remaining();
        int n = c.channel.read(buffer);
        if (n < 0) {
          int unconsumed = c.input.pending();
          close(c);
          c.session.onEndOfStream(unconsumed); // throws, and is counted, if a request was cut off
          return;
        }
        if (n == 0) {
          break;
        }
        c.lastActive = System.nanoTime();
        ByteSession.Next next;
        try {
          next = c.session.onRead(c.input.forReading(), c.output);
        } finally {
          c.input.afterReading();
        }
        if (next == ByteSession.Next.CLOSE_AFTER_WRITE) {
          c.closeAfterWrite = true;
          break;
        }
        if (n < room || c.output.pending() >= HIGH_WATER_MARK) {
          break; // drained the socket for now, or replies must go out first
        }
      }
      flush(c);
    }

    private void flush(Connection c) throws IOException {
      boolean done = c.output.writeTo(c.channel);
      if (!c.key.isValid()) {
        return;
      }
      if (done) {
        c.output.trimTo(INITIAL_BUFFER);
        if (c.closeAfterWrite) {
          close(c);
          return;
        }
        c.key.interestOps(SelectionKey.OP_READ);
      } else {
        c.lastActive = System.nanoTime();
        boolean keepReading = !c.closeAfterWrite && c.output.pending() < HIGH_WATER_MARK;
        c.key.interestOps(SelectionKey.OP_WRITE | (keepReading ? SelectionKey.OP_READ : 0));
      }
    }

    private void closeIdle() {
      long now = System.nanoTime();
      if (now - lastIdleCheck < idleCheckMillis() * 1_000_000L) {
        return;
      }
      lastIdleCheck = now;
      for (SelectionKey key : selector.keys()) {
        if (key.attachment() instanceof Connection c && now - c.lastActive > idleTimeoutNanos) {
          fail(c, new IOException("idle for " + Duration.ofNanos(idleTimeoutNanos).toMillis() + " ms; closing"));
        }
      }
    }

    private void fail(Connection c, Exception e) {
      if (c.key != null && !c.key.isValid()) {
        // already closed: end of stream mid-request, reported by onEndOfStream
        if (!closing) {
          failed.incrementAndGet();
          connectionLog.warn("{}: dropped connection: {}", name, BaseServer.describe(e));
        }
        return;
      }
      try {
        c.output.writeTo(c.channel); // best effort: an error reply the session wrote
      } catch (IOException ignored) {
        // the peer is gone
      }
      if (!closing) {
        failed.incrementAndGet();
        connectionLog.warn("{}: dropped connection from {}: {}", name, remote(c), BaseServer.describe(e));
      }
      close(c);
    }

    private void close(Connection c) {
      if (c.key != null) {
        c.key.cancel();
      }
      if (c.channel.isOpen()) {
        closeQuietly(c.channel);
        open.decrementAndGet();
        handled.incrementAndGet();
      }
    }
  }

  /** How often a loop looks for idle connections: a quarter of the timeout, within 10..250 ms. */
  private long idleCheckMillis() {
    return Math.max(10, Math.min(250, idleTimeoutNanos / 4_000_000L));
  }

  private static Object remote(Connection c) {
    try {
      return c.channel.getRemoteAddress();
    } catch (IOException e) {
      return "?";
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closing || serverChannel == null) {
        closing = true;
        return;
      }
      closing = true;
    }
    try {
      serverChannel.close();
    } catch (IOException e) {
      LOG.debug("{}: closing the listening channel: {}", name, e.toString());
    }
    try {
      acceptor.join(5_000);
      for (Loop loop : loops) {
        loop.selector.wakeup();
        loop.thread.join(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
