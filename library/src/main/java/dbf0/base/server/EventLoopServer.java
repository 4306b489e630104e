package dbf0.base.server;

import static com.google.common.base.Preconditions.checkState;

import dbf0.base.io.OutputBuffer;
import dbf0.common.FlushingThread;
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
import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * <p>No client can stall a loop: reads and writes never block, and a client that stops reading its
 * replies is simply not read from any more once 1 MiB of replies waits for it (backpressure), so
 * its pipeline cannot grow the server's memory without bound. A session waiting for its writes
 * returns {@link ByteSession.Next#AWAIT}, and the loop parks that connection until the future's
 * completion resumes it. The loop runs on a {@link FlushingThread}: a store that holds writes back
 * is flushed once at the end of each turn, for all the turn's connections, by the loop itself
 * (under {@code --fsync always} that includes the fsync, so a slow disk slows the loop, as it does
 * Redis's). Connections idle for longer than the idle timeout are closed; past the connection
 * limit, new connections are closed at once.
 */
public final class EventLoopServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(EventLoopServer.class);
    private static final int INITIAL_BUFFER = 4096;

    /** Stop reading from a connection while this many reply bytes wait to be sent to it. */
    static final int HIGH_WATER_MARK = OutputBuffer.HIGH_WATER_MARK;

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
    private Loop[] loops;
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
        loops = new Loop[loopCount];
        for (int i = 0; i < loopCount; i++) {
            loops[i] = new Loop(Selector.open());
            loops[i].thread = new FlushingThread(loops[i], name + "-loop-" + i);
            loops[i].thread.start();
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

    private final class Loop implements Runnable {
        final Selector selector;
        final Queue<SocketChannel> incoming = new ConcurrentLinkedQueue<>();

        /**
         * Connections whose awaited future completed, maybe on another thread (the log writer's),
         * which must not touch a connection the loop owns: it queues it here and wakes the loop.
         */
        final Queue<Connection> resumed = new ConcurrentLinkedQueue<>();

        /**
         * Connections whose replies wait for the flush this turn owes (a log's, which the loop's
         * own flush completes): revisited right after it, with no future made or completed.
         */
        final ArrayList<Connection> afterFlush = new ArrayList<>();

        FlushingThread thread;
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
                while (!lifecycle.isClosing()) {
                    // select(Consumer) hands each ready key straight to handle(): no selected-key
                    // set to fill, iterate and clear on every pass (it showed up in profiles).
                    selector.select(this::handle, idleCheckMillis());
                    registerIncoming();
                    endTurn();
                    closeIdle();
                }
            } catch (Throwable e) {
                fatal(Thread.currentThread().getName(), e);
            } finally {
                for (SelectionKey key : selector.keys()) {
                    if (key.attachment() instanceof Connection c) {
                        close(c);
                    }
                }
                SocketChannel pending;
                while ((pending = incoming.poll()) != null) {
                    ServerLifecycle.closeQuietly(pending);
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
                Connection c;
                try {
                    c = new Connection(channel, sessions.get(), INITIAL_BUFFER);
                } catch (Throwable t) {
                    // Making the session failed: no connection to blame, but this socket must not
                    // leak (it is off the queue already). The loop then dies loudly, see run().
                    ServerLifecycle.closeQuietly(channel);
                    open.decrementAndGet();
                    handled.incrementAndGet();
                    failed.incrementAndGet();
                    throw t;
                }
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
                    drive(c);
                }
                // ready-to-read may be stale after drive() stopped reading (paused, end of stream)
                if (key.isValid()
                        && key.isReadable()
                        && (key.interestOps() & SelectionKey.OP_READ) != 0) {
                    read(c);
                }
            } catch (Throwable e) {
                // Whatever one connection's session throws, OutOfMemoryError included, costs that
                // connection: it is closed and its buffers freed, and the loop serves the others.
                fail(c, e);
            }
        }

        private void read(Connection c) throws IOException {
            while (true) {
                ByteBuffer buffer = c.input.forWriting(c.session.bytesNeeded());
                int room = buffer.remaining();
                int n = c.channel.read(buffer);
                if (n < 0) {
                    // Half-closed: what is buffered still gets decoded and every reply sent
                    // (drive()), and only then does the connection close. Closing here would drop
                    // pipelined replies.
                    c.inputClosed = true;
                    break;
                }
                if (n == 0) {
                    break;
                }
                c.lastActive = System.nanoTime();
                decode(c, true);
                if (c.closeAfterWrite || c.paused || c.awaiting) {
                    break;
                }
                if (n < room || c.output.pending() >= HIGH_WATER_MARK) {
                    break; // drained the socket for now, or replies must go out first
                }
            }
            drive(c);
        }

        /**
         * Lets the session consume what is buffered. If it must wait, it waits for the turn's end
         * ({@link #afterFlush}) if {@code mayWaitForTurn} and a flush is owed, else for its future.
         */
        private void decode(Connection c, boolean mayWaitForTurn) throws IOException {
            ByteSession.Next next;
            try {
                next = c.session.onRead(c.input.forReading(), c.output);
            } finally {
                c.input.afterReading();
            }
            c.paused = next == ByteSession.Next.WRITE_FIRST;
            if (next == ByteSession.Next.CLOSE_AFTER_WRITE) {
                c.closeAfterWrite = true;
            }
            if (next == ByteSession.Next.AWAIT) {
                // never block the loop: stop reading until the turn's flush or the future is done
                c.awaiting = true;
                if (mayWaitForTurn && thread.owesFlushes()) {
                    afterFlush.add(c);
                } else {
                    c.session
                            .awaiting()
                            .whenComplete(
                                    (ignored, failure) -> {
                                        resumed.add(c);
                                        if (Thread.currentThread() != thread) {
                                            selector.wakeup(); // on the loop, endTurn resumes it
                                        }
                                    });
                }
            }
        }

        /**
         * Before the loop waits again: runs the flushes the turn's sessions owe (one write, under
         * {@code always} one fsync, for every connection served), then resumes the connections
         * waiting for it or whose futures completed; until their buffered input owes no more.
         */
        private void endTurn() {
            do {
                thread.flushOwed();
                for (int i = 0; i < afterFlush.size(); i++) {
                    resume(afterFlush.get(i));
                }
                afterFlush.clear();
                Connection c;
                while ((c = resumed.poll()) != null) {
                    resume(c);
                }
            } while (thread.owesFlushes());
        }

        /**
         * Goes on with a connection whose wait ended: its replies, then its buffered input. Waiting
         * again, it waits for its session's future (a flush that did not complete its writes will).
         */
        private void resume(Connection c) {
            if (c.key == null || !c.key.isValid()) {
                return; // closed while it waited (idle, server closing): nothing left to answer
            }
            c.awaiting = false;
            c.lastActive = System.nanoTime();
            try {
                decode(c, false);
                drive(c);
            } catch (Throwable e) {
                fail(c, e);
            }
        }

        /**
         * Sends what it can, and while the replies drain completely resumes a paused session on its
         * buffered input; then sets what the connection waits for. Reading stops while replies pile
         * up (backpressure), while the session is paused or awaits its writes, and after the peer's
         * end of stream.
         */
        private void drive(Connection c) throws IOException {
            while (true) {
                boolean done = c.output.isEmpty() || c.output.writeTo(c.channel);
                if (!c.key.isValid()) {
                    return;
                }
                if (!done) {
                    c.lastActive = System.nanoTime();
                    boolean keepReading =
                            !c.closeAfterWrite
                                    && !c.paused
                                    && !c.awaiting
                                    && !c.inputClosed
                                    && c.output.pending() < HIGH_WATER_MARK;
                    c.key.interestOps(
                            SelectionKey.OP_WRITE | (keepReading ? SelectionKey.OP_READ : 0));
                    return;
                }
                c.output.trimTo(INITIAL_BUFFER);
                if (c.closeAfterWrite) {
                    close(c);
                    return;
                }
                if (c.awaiting) {
                    c.key.interestOps(0); // neither read nor decode until resume
                    return;
                }
                if (c.paused) {
                    // the replies are gone: decode more of what is already buffered
                    decode(c, true);
                    continue;
                }
                if (c.inputClosed) {
                    int unconsumed = c.input.pending();
                    close(c);
                    // throws, and is counted, if a request was cut off
                    c.session.onEndOfStream(unconsumed);
                    return;
                }
                c.key.interestOps(SelectionKey.OP_READ);
                return;
            }
        }

        private void closeIdle() {
            long now = System.nanoTime();
            if (now - lastIdleCheck < idleCheckMillis() * 1_000_000L) {
                return;
            }
            lastIdleCheck = now;
            String idle = "idle for " + Duration.ofNanos(idleTimeoutNanos).toMillis() + " ms";
            for (SelectionKey key : selector.keys()) {
                // awaiting its writes is not idle: the server, not the client, is slow
                if (key.attachment() instanceof Connection c
                        && !c.awaiting
                        && now - c.lastActive > idleTimeoutNanos) {
                    fail(c, new IOException(idle + "; closing"));
                }
            }
        }

        private void fail(Connection c, Throwable e) {
            if (c.key != null && !c.key.isValid()) {
                // already closed: end of stream mid-request, reported by onEndOfStream
                if (!lifecycle.isClosing()) {
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
            if (!lifecycle.isClosing()) {
                failed.incrementAndGet();
                connectionLog.warn(
                        "{}: dropped connection from {}: {}",
                        name,
                        c.remote(),
                        BaseServer.describe(e));
            }
            close(c);
        }

        private void close(Connection c) {
            if (c.key != null) {
                c.key.cancel();
            }
            if (c.channel.isOpen()) {
                ServerLifecycle.closeQuietly(c.channel);
                open.decrementAndGet();
                handled.incrementAndGet();
            }
        }
    }

    /** How often a loop looks for idle connections: a quarter of the timeout, within 10..250 ms. */
    private long idleCheckMillis() {
        return Math.max(10, Math.min(250, idleTimeoutNanos / 4_000_000L));
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
                    for (Loop loop : loops == null ? new Loop[0] : loops) { // null: never started
                        loop.selector.wakeup();
                        if (loop.thread != Thread.currentThread()) {
                            loop.thread.join(5_000);
                        }
                    }
                });
    }
}
