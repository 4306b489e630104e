package dbf0.base.server;

import static com.google.common.base.Preconditions.checkState;

import dbf0.common.RateLimitedLog;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nio} server model: a few event-loop threads, each with a {@link Selector}, serve every
 * connection without blocking. An acceptor thread hands new connections to the loops in turn.
 * Thousands of idle or slow connections cost memory, not threads.
 *
 * <p>This class is the server's part: it binds the port, starts the loops and the acceptor, counts
 * connections, and shuts everything down, on a close or when a loop dies. Past the connection
 * limit, new connections are closed at once. How one loop serves its connections (backpressure,
 * waiting for writes, the flush at the end of each turn, idle connections) is {@link EventLoop}'s.
 */
public final class EventLoopServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(EventLoopServer.class);

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
    private final ServerLifecycle lifecycle;
    private volatile int backlog = 1024;
    private ServerSocketChannel serverChannel;
    private EventLoop[] loops;
    private int nextLoop;

    /**
     * @param loops event-loop threads (the {@code threads} setting of the server)
     * @param sessions makes the protocol session of each new connection
     */
    public EventLoopServer(
            String name,
            InetSocketAddress bindAddress,
            int loops,
            Supplier<ByteSession> sessions,
            int maxConnections,
            Duration idleTimeout) {
        if (loops < 1) {
            throw new IllegalArgumentException("loops must be at least 1, got " + loops);
        }
        this.name = name;
        this.bindAddress = bindAddress;
        this.loopCount = loops;
        this.sessions = sessions;
        this.maxConnections = maxConnections;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.lifecycle = new ServerLifecycle(name, LOG);
    }

    /** The kernel's queue of connections not yet accepted. Set before start. */
    public void setBacklog(int backlog) {
        this.backlog = backlog;
    }

    /** As {@link BaseServer#bind}: binds once; connections wait for {@link #start} to accept. */
    public synchronized void bind() throws IOException {
        if (serverChannel == null) {
            serverChannel = ServerLifecycle.bindChannel(bindAddress, backlog);
        }
    }

    /** Binds the port unless {@link #bind} did, and starts the loops and the acceptor. */
    public synchronized void start() throws IOException {
        checkState(loops == null, "%s already started", name);
        bind();
        EventLoop.Shared shared =
                new EventLoop.Shared(
                        name,
                        sessions,
                        idleTimeoutNanos,
                        open,
                        handled,
                        failed,
                        connectionLog,
                        lifecycle::isClosing,
                        this::fatal);
        loops = new EventLoop[loopCount];
        for (int i = 0; i < loopCount; i++) {
            loops[i] = new EventLoop(shared, Selector.open());
            loops[i].start(name + "-loop-" + i);
        }
        Acceptor<SocketChannel> accepting =
                new Acceptor<>(
                        name,
                        serverChannel::accept,
                        open,
                        maxConnections,
                        accepted -> { // round robin, on the acceptor's thread alone
                            loops[nextLoop].add(accepted);
                            nextLoop = (nextLoop + 1) % loops.length;
                        },
                        () -> {
                            handled.incrementAndGet();
                            failed.incrementAndGet();
                        },
                        lifecycle::isClosing,
                        connectionLog,
                        Thread::sleep);
        lifecycle.startAcceptor(accepting, this::close);
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

    /**
     * A loop or the acceptor died of something no connection can be blamed for. Half a server, with
     * the acceptor handing sockets to a dead loop, would hang its clients: instead it logs once,
     * closes everything, and completes {@link #failure()} so the process exits non-zero.
     */
    private void fatal(String what, Throwable t) {
        lifecycle.fatal(what, t, this::close);
    }

    /**
     * Completes with the cause if the server fails and shuts itself down; never completes
     * otherwise.
     */
    public CompletableFuture<Throwable> failure() {
        return lifecycle.failure();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!lifecycle.beginClose(serverChannel != null)) {
                return;
            }
        }
        // each loop closes its own connections on the way out
        lifecycle.stop(
                serverChannel,
                () -> {},
                () -> {
                    // null: never started
                    for (EventLoop loop : loops == null ? new EventLoop[0] : loops) {
                        loop.wakeAndJoin();
                    }
                });
    }
}
