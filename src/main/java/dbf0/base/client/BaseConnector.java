package dbf0.base.client;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import dbf0.common.RateLimitedLog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client thread of the seed's model: connect, {@link #processConnection}, close, repeat,
 * until {@link #stop()} is called. A fresh TCP connection per iteration is the seed's design; it
 * is also why the seed's figures are dominated by the kernel's connection handling.
 *
 * <p>Counters kept by subclasses are plain fields: only this connector's thread writes them, and
 * {@link #join()} makes them visible to the thread that reads them afterwards.
 */
public abstract class BaseConnector implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(BaseConnector.class);
  private static final RateLimitedLog ERROR_LOG = new RateLimitedLog(LOG, 5);
  private static final int TIMEOUT_MILLIS = 10_000;

  private final InetSocketAddress serverAddress;
  private final String name;
  private volatile boolean stopped;
  private Thread thread;
  private long errors;

  protected BaseConnector(InetSocketAddress serverAddress, String name) {
    this.serverAddress = serverAddress;
    this.name = checkNotNull(name, "name");
  }

  /** Uses the connected socket for one unit of work; the socket is closed afterwards. */
  protected abstract void processConnection(Socket socket) throws IOException;

  /**
   * Called after each connection that completed without error, with the time from just before
   * connect to just after close: the latency of a one-operation connection.
   */
  protected void connectionDone(long startNanos, long endNanos) {}

  /**
   * Where the next connection goes; called just before each connect. The constructor's address
   * unless a subclass spreads its connections over several servers (it may then decide the
   * connection's work here, since the work picks the server).
   */
  protected InetSocketAddress nextAddress() {
    return serverAddress;
  }

  /** Starts this connector on a platform thread of its own. */
  public void start() {
    start(Thread.ofPlatform().daemon());
  }

  /** Starts this connector on a thread made by {@code builder} (virtual, say), named after it. */
  public synchronized void start(Thread.Builder builder) {
    checkState(thread == null, "%s already started", name);
    thread = builder.name(name).start(this);
  }

  @Override
  public void run() {
    while (!stopped) {
      long start = System.nanoTime();
      try {
        try (Socket socket = new Socket()) {
          socket.setSoTimeout(TIMEOUT_MILLIS);
          socket.connect(nextAddress(), TIMEOUT_MILLIS);
          processConnection(socket);
        }
        connectionDone(start, System.nanoTime());
      } catch (IOException | RuntimeException e) {
        if (stopped) {
          break; // the run ended mid-operation: not an error
        }
        errors++;
        ERROR_LOG.warn("{}: {}", name, e.toString());
      }
    }
  }

  /** Asks the loop to finish after the current connection. */
  public void stop() {
    stopped = true;
  }

  public boolean isStopped() {
    return stopped;
  }

  /** Waits for the thread started by {@link #start()} to finish. */
  public void join() throws InterruptedException {
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.join();
    }
  }

  public InetSocketAddress getServerAddress() {
    return serverAddress;
  }

  public String getName() {
    return name;
  }

  /** Connections that failed with an exception while the connector was running. */
  public long getErrors() {
    return errors;
  }
}
