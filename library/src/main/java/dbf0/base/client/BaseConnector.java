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
 * One client thread of the seed's model: connect, {@link #processConnection}, close, repeat, until
 * {@link #stop()} is called. A fresh TCP connection per iteration is the seed's design; it is also
 * why the seed's figures are dominated by the kernel's connection handling. Connectors that keep
 * their connections open for the whole run (protocol v2) override {@link #run()}.
 *
 * <p>Each connector counts into its own {@link KeyValueClientStats}, {@link LatencyRecorder} and
 * error count: plain fields, written only by this connector's thread; {@link #join()} makes them
 * visible to the thread that reads them afterwards.
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
    private final KeyValueClientStats stats = new KeyValueClientStats();
    private final LatencyRecorder latencies = new LatencyRecorder();

    protected BaseConnector(InetSocketAddress serverAddress, String name) {
        this.serverAddress = serverAddress;
        this.name = checkNotNull(name, "name");
    }

    /**
     * Uses the connected socket for one unit of work; the socket is closed afterwards. Only the
     * seed's loop calls it, so a connector that overrides {@link #run()} need not.
     */
    protected void processConnection(Socket socket) throws IOException {
        throw new UnsupportedOperationException(name + " overrides run()");
    }

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

    /** Starts this connector on a thread made by {@code builder} (a virtual one, say). */
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
                countError(e);
            }
        }
    }

    /** Counts one failure and logs it (a few lines a second at most, however many fail). */
    protected void countError(Exception e) {
        errors++;
        ERROR_LOG.warn("{}: {}", name, e.toString());
    }

    /** Counts {@code n} failures that need no log line each (ERROR replies, unanswered frames). */
    protected void countErrors(long n) {
        errors += n;
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

    /** Connections or operations that failed while the connector was running. */
    public long getErrors() {
        return errors;
    }

    /** What this connector counted in the measured interval; read after {@link #join()}. */
    public KeyValueClientStats getStats() {
        return stats;
    }

    public LatencyRecorder getLatencies() {
        return latencies;
    }
}
