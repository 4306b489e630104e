package dbf0.base.server;

import dbf0.base.io.OutputBuffer;
import dbf0.common.FlushingThread;
import dbf0.common.RateLimitedLog;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One event loop of the {@code nio} server model: one thread and one {@link Selector} that serve
 * every connection the acceptor hands it, without ever blocking on one. {@link EventLoopServer}
 * runs a few of these. Only the loop's own thread touches the {@link Connection}s it owns, so they
 * need no locks: other threads just queue work for it (a new connection, a resumed one) and wake
 * its selector.
 *
 * <p>No client can stall a loop: reads and writes never block, and a client that stops reading its
 * replies is simply not read from any more once 1 MiB of replies waits for it (backpressure), so
 * its pipeline cannot grow the server's memory without bound. A session waiting for its writes
 * returns {@link ByteSession.Next#AWAIT}, and the loop parks that connection until the future's
 * completion resumes it. The loop runs on a {@link FlushingThread}: a store that holds writes back
 * is flushed once at the end of each turn, for all the turn's connections, by the loop itself
 * (under {@code --fsync always} that includes the fsync, so a slow disk slows the loop, as it does
 * Redis's). Connections idle for longer than the idle timeout are closed.
 */
final class EventLoop implements Runnable {

    private static final int INITIAL_BUFFER = 4096;

    /** Stop reading from a connection while this many reply bytes wait to be sent to it. */
    private static final int HIGH_WATER_MARK = OutputBuffer.HIGH_WATER_MARK;

    /**
     * What the loops of one server share, passed in by {@link EventLoopServer}: a loop knows its
     * server only through these.
     *
     * @param name the server's name, for log lines
     * @param sessions makes the protocol session of each new connection
     * @param idleTimeoutNanos how long a connection may stay idle before it is closed
     * @param open connections open now: the loop decrements it for each one it closes
     * @param handled connections done with, counted as they close
     * @param failed connections dropped for an error
     * @param connectionLog where dropped connections are logged, at most a few lines a second
     * @param closing true from the server's first close on: the loop ends, and errors seen after
     *     that are the shutdown's
     * @param fatal told the thread's name and the cause when the loop dies of something no
     *     connection can be blamed for; the server then shuts down
     */
    record Shared(
            String name,
            Supplier<ByteSession> sessions,
            long idleTimeoutNanos,
            AtomicInteger open,
            AtomicLong handled,
            AtomicLong failed,
            RateLimitedLog connectionLog,
            BooleanSupplier closing,
            BiConsumer<String, Throwable> fatal) {}

    private final Shared server;
    private final Selector selector;

    /** Connections the acceptor handed over, waiting for the loop to register them. */
    private final Queue<SocketChannel> incoming = new ConcurrentLinkedQueue<>();

    /**
     * Connections whose awaited future completed, maybe on another thread (the log writer's), which
     * must not touch a connection the loop owns: it queues it here and wakes the loop.
     */
    private final Queue<Connection> resumed = new ConcurrentLinkedQueue<>();

    /**
     * Connections whose replies wait for the flush this turn owes (a log's, which the loop's own
     * flush completes): revisited right after it, with no future made or completed.
     */
    private final ArrayList<Connection> afterFlush = new ArrayList<>();

    private FlushingThread thread;
    private long lastIdleCheck = System.nanoTime();

    EventLoop(Shared server, Selector selector) {
        this.server = server;
        this.selector = selector;
    }

    /** Starts the loop's thread. */
    void start(String threadName) {
        thread = new FlushingThread(this, threadName);
        thread.start();
    }

    /** Hands over a new connection, from the acceptor's thread. */
    void add(SocketChannel channel) {
        incoming.add(channel);
        selector.wakeup();
    }

    /**
     * Once the server is closing: wakes the loop so that it sees that, closes its connections and
     * ends, and waits (up to 5 s) for it to end, unless called from the loop's own thread.
     */
    void wakeAndJoin() throws InterruptedException {
        selector.wakeup();
        if (thread != Thread.currentThread()) {
            thread.join(5_000);
        }
    }

    @Override
    public void run() {
        try {
            while (!server.closing().getAsBoolean()) {
                // select(Consumer) hands each ready key straight to handle(): no selected-key
                // set to fill, iterate and clear on every pass (it showed up in profiles).
                selector.select(this::handle, idleCheckMillis());
                registerIncoming();
                endTurn();
                closeIdle();
            }
        } catch (Throwable e) {
            server.fatal().accept(Thread.currentThread().getName(), e);
        } finally {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Connection c) {
                    close(c);
                }
            }
            SocketChannel pending;
            while ((pending = incoming.poll()) != null) {
                ServerLifecycle.closeQuietly(pending);
                server.open().decrementAndGet();
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
                c = new Connection(channel, server.sessions().get(), INITIAL_BUFFER);
            } catch (Throwable t) {
                // Making the session failed: no connection to blame, but this socket must not
                // leak (it is off the queue already). The loop then dies loudly, see run().
                ServerLifecycle.closeQuietly(channel);
                server.open().decrementAndGet();
                server.handled().incrementAndGet();
                server.failed().incrementAndGet();
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
     * {@code always} one fsync, for every connection served), then resumes the connections waiting
     * for it or whose futures completed; until their buffered input owes no more.
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
     * buffered input; then sets what the connection waits for. Reading stops while replies pile up
     * (backpressure), while the session is paused or awaits its writes, and after the peer's end of
     * stream.
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
                c.key.interestOps(SelectionKey.OP_WRITE | (keepReading ? SelectionKey.OP_READ : 0));
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
        long timeout = server.idleTimeoutNanos();
        String idle = "idle for " + Duration.ofNanos(timeout).toMillis() + " ms";
        for (SelectionKey key : selector.keys()) {
            // awaiting its writes is not idle: the server, not the client, is slow
            if (key.attachment() instanceof Connection c
                    && !c.awaiting
                    && now - c.lastActive > timeout) {
                fail(c, new IOException(idle + "; closing"));
            }
        }
    }

    /**
     * How often the loop looks for idle connections: a quarter of the timeout, within 10..250 ms.
     */
    private long idleCheckMillis() {
        return Math.max(10, Math.min(250, server.idleTimeoutNanos() / 4_000_000L));
    }

    private void fail(Connection c, Throwable e) {
        if (c.key != null && !c.key.isValid()) {
            // already closed: end of stream mid-request, reported by onEndOfStream
            if (!server.closing().getAsBoolean()) {
                server.failed().incrementAndGet();
                server.connectionLog()
                        .warn("{}: dropped connection: {}", server.name(), BaseServer.describe(e));
            }
            return;
        }
        try {
            c.output.writeTo(c.channel); // best effort: an error reply the session wrote
        } catch (IOException ignored) {
            // the peer is gone
        }
        if (!server.closing().getAsBoolean()) {
            server.failed().incrementAndGet();
            server.connectionLog()
                    .warn(
                            "{}: dropped connection from {}: {}",
                            server.name(),
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
            server.open().decrementAndGet();
            server.handled().incrementAndGet();
        }
    }
}
