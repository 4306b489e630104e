package dbf0.base.server;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import dbf0.common.RateLimitedLog;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seed's server model: one thread accepts connections and hands each to a fixed pool of {@code
 * nThreads} workers, which run {@link #processConnection} and then close the socket. With {@code
 * nThreads == 1} there is no pool: the accept thread handles each connection itself, so the server
 * is strictly single-threaded. With {@link #setVirtualThreads} each connection gets a virtual
 * thread instead.
 *
 * <p>Failure is per connection: anything thrown by {@code processConnection} (bad bytes, a client
 * that hung up mid-frame, a client that sent nothing before the read timeout, even an Error such as
 * OutOfMemoryError) closes that socket and logs one line, never a stack trace, and the accept loop
 * goes on. If the accept thread itself dies, the server closes and completes {@link #failure()}. A
 * pool connection that waits for a worker longer than the read timeout is closed unserved (see
 * {@code expireQueued}). {@link #close()} stops accepting, closes the sockets still open, and waits
 * for the workers; errors caused by the shutdown itself are not logged.
 */
public abstract class BaseServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(BaseServer.class);

    /**
     * A connection whose client sends nothing for this long is closed, and one that waited this
     * long for a pool worker is closed unserved. The one default of every server model ({@code
     * ServerOptions.DEFAULT_IDLE_TIMEOUT} is this value).
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final InetSocketAddress bindAddress;
    private final int nThreads;
    private final RateLimitedLog connectionLog = new RateLimitedLog(LOG, 20);
    private final Set<Socket> openSockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionsHandled = new AtomicLong();
    private final AtomicLong connectionsFailed = new AtomicLong();
    private final AtomicInteger open = new AtomicInteger();
    private volatile Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private volatile boolean virtualThreads;
    private volatile int maxConnections = Integer.MAX_VALUE;

    private volatile int backlog = 1024;
    private final ServerLifecycle lifecycle;
    private ServerSocket serverSocket;
    private boolean started;
    private ExecutorService pool;
    private Thread queueTimer;

    /**
     * @param name used in thread names and log lines
     * @param bindAddress where to listen; port 0 picks a free port (see {@link #getLocalAddress()})
     * @param nThreads worker threads; 1 means the accept thread does the work itself
     */
    protected BaseServer(String name, InetSocketAddress bindAddress, int nThreads) {
        checkArgument(nThreads >= 1, "nThreads must be at least 1, got %s", nThreads);
        this.name = checkNotNull(name, "name");
        this.bindAddress = checkNotNull(bindAddress, "bindAddress");
        this.nThreads = nThreads;
        this.lifecycle = new ServerLifecycle(name, LOG);
    }

    /** Handles one accepted connection; the socket is closed when this returns or throws. */
    protected abstract void processConnection(Socket socket) throws IOException;

    /** How long a worker waits for a client's bytes before giving up on it. Set before start. */
    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    /**
     * Runs each connection on a virtual thread of its own instead of the fixed pool (the {@code
     * virtual} server model): a blocked connection then costs a few kilobytes, not a platform
     * thread, so thousands of persistent connections are fine. Set before start.
     */
    public void setVirtualThreads(boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
    }

    /** The kernel's queue of connections not yet accepted (the seed used 50). Set before start. */
    public void setBacklog(int backlog) {
        this.backlog = backlog;
    }

    /** Connections beyond this many open at once are closed as soon as they are accepted. */
    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    /**
     * Binds the port, once, without accepting yet: connections wait in the kernel's queue until
     * {@link #start}. A caller binds first to fail on a taken port before it does anything else.
     *
     * @throws IOException naming the address, if it cannot be bound
     */
    public synchronized void bind() throws IOException {
        if (serverSocket != null) {
            return;
        }
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(bindAddress, backlog);
        } catch (IOException e) {
            socket.close();
            throw cannotListen(bindAddress, e);
        }
        serverSocket = socket;
    }

    /** Binds the port unless {@link #bind} did, and starts accepting. */
    public synchronized void start() throws IOException {
        checkState(!started, "%s already started", name);
        bind();
        started = true;
        if (virtualThreads) {
            pool =
                    Executors.newThreadPerTaskExecutor(
                            Thread.ofVirtual().name(name + "-virtual-", 0).factory());
        } else if (nThreads > 1) {
            ThreadPoolExecutor fixed =
                    new ThreadPoolExecutor(
                            nThreads,
                            nThreads,
                            0,
                            TimeUnit.MILLISECONDS,
                            new LinkedBlockingQueue<>(),
                            Thread.ofPlatform().name(name + "-worker-", 0).daemon().factory());
            pool = fixed;
            queueTimer =
                    Thread.ofPlatform()
                            .name(name + "-queue-timer")
                            .daemon()
                            .start(() -> expireQueued(fixed));
        }
        Runnable refused =
                () -> {
                    connectionsHandled.incrementAndGet();
                    connectionsFailed.incrementAndGet();
                };
        Acceptor<Socket> acceptor =
                new Acceptor<>(
                        name,
                        serverSocket::accept,
                        open,
                        maxConnections,
                        this::dispatch,
                        refused,
                        lifecycle::isClosing,
                        connectionLog,
                        Thread::sleep);
        lifecycle.startAcceptor(acceptor, this::close);
    }

    /** The bound address; with port 0 this tells which port was chosen. */
    public InetSocketAddress getLocalAddress() {
        ServerSocket socket = serverSocket;
        checkState(socket != null, "%s not started", name);
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    public String getName() {
        return name;
    }

    public int getThreadCount() {
        return nThreads;
    }

    /** Connections whose processing finished, successfully or not. */
    public long getConnectionsHandled() {
        return connectionsHandled.get();
    }

    /** Connections open right now. */
    public int getOpenConnections() {
        return open.get();
    }

    /** Connections dropped because of an error (each logged once). */
    public long getConnectionsFailed() {
        return connectionsFailed.get();
    }

    private void dispatch(Socket socket) {
        if (pool == null) {
            handle(socket);
            return;
        }
        try {
            pool.execute(new Queued(socket, System.nanoTime()));
        } catch (RejectedExecutionException e) {
            open.decrementAndGet();
            ServerLifecycle.closeQuietly(socket); // only happens while closing
        }
    }

    /** A connection waiting for a pool worker, and since when. */
    private final class Queued implements Runnable {
        final Socket socket;
        final long since;

        Queued(Socket socket, long since) {
            this.socket = socket;
            this.since = since;
        }

        @Override
        public void run() {
            handle(socket);
        }
    }

    /**
     * With every pool worker held by a connection, new connections wait in the pool's queue, where
     * the read timeout does not run yet (a worker starts it). Left alone they would wait for as
     * long as the busy connections last, which clients that trickle bytes can make forever. So a
     * connection that waited longer than the read timeout is closed, unserved, and the server logs
     * that it is saturated: the wait for a worker is bounded by the read timeout (plus one check
     * period, a quarter of it within 10..250 ms). It is still a wait: the pool model has as many
     * connections in service as threads, which is its lesson; virtual and nio have no such queue.
     */
    private void expireQueued(ThreadPoolExecutor fixed) {
        while (!lifecycle.isClosing()) {
            long timeoutNanos = idleTimeout.toNanos();
            try {
                Thread.sleep(Math.max(10, Math.min(250, timeoutNanos / 4_000_000L)));
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Runnable task : fixed.getQueue()) {
                // remove() decides the race with a worker taking the task: only one of them gets it
                if (task instanceof Queued q && now - q.since > timeoutNanos && fixed.remove(q)) {
                    ServerLifecycle.closeQuietly(q.socket);
                    open.decrementAndGet();
                    connectionsHandled.incrementAndGet();
                    connectionsFailed.incrementAndGet();
                    connectionLog.warn(
                            "{}: saturated: all {} workers busy; closed a connection from {} "
                                    + "after {} ms waiting for one",
                            name,
                            nThreads,
                            q.socket.getRemoteSocketAddress(),
                            (now - q.since) / 1_000_000L);
                }
            }
        }
    }

    private void handle(Socket socket) {
        openSockets.add(socket);
        try (socket) {
            if (lifecycle.isClosing()) {
                return;
            }
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis()));
            processConnection(socket);
        } catch (Throwable e) {
            // Any failure, an Error such as OutOfMemoryError included, costs this connection only:
            // its buffers go with it and the worker lives on to serve the next one.
            if (!lifecycle.isClosing()) {
                connectionsFailed.incrementAndGet();
                connectionLog.warn(
                        "{}: dropped connection from {}: {}",
                        name,
                        socket.getRemoteSocketAddress(),
                        describe(e));
            }
        } finally {
            openSockets.remove(socket);
            open.decrementAndGet();
            connectionsHandled.incrementAndGet();
        }
    }

    /** One line a student can read, instead of a stack trace. */
    static String describe(Throwable e) {
        if (e instanceof SocketTimeoutException) {
            return "no bytes for the read timeout; closing (" + e.getMessage() + ")";
        }
        if (e instanceof EOFException) {
            return "client closed the connection mid-request (" + e.getMessage() + ")";
        }
        if (e instanceof SocketException) {
            return "socket error: " + e.getMessage();
        }
        if (e instanceof Error) {
            return e.toString(); // the class name is the news: OutOfMemoryError,
            // StackOverflowError...
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** "cannot listen on 127.0.0.1:9000: Address already in use", keeping the exception's type. */
    static IOException cannotListen(InetSocketAddress address, IOException e) {
        String message =
                "cannot listen on "
                        + address.getHostString()
                        + ":"
                        + address.getPort()
                        + ": "
                        + e.getMessage();
        IOException named =
                e instanceof BindException ? new BindException(message) : new IOException(message);
        named.initCause(e);
        return named;
    }

    /** Completes with the cause if the server fails and shuts itself down; else never completes. */
    public CompletableFuture<Throwable> failure() {
        return lifecycle.failure();
    }

    /** Stops accepting, closes open connections and waits (up to 5 s) for the workers. */
    @Override
    public void close() {
        synchronized (this) {
            if (!lifecycle.beginClose(serverSocket != null)) {
                return;
            }
        }
        lifecycle.stop(
                serverSocket,
                () -> openSockets.forEach(ServerLifecycle::closeQuietly),
                () -> {
                    if (queueTimer != null) {
                        queueTimer.interrupt();
                    }
                    if (pool != null) {
                        pool.shutdownNow();
                        if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
                            LOG.warn(
                                    "{}: worker threads still busy 5 s after close; abandoning"
                                            + " them",
                                    name);
                        }
                    }
                });
    }
}
