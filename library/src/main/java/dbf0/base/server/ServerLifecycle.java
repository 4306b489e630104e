package dbf0.base.server;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;

/**
 * Starting and stopping that both server models share: the accept thread, the one-way {@code
 * closing} flag, the "failed as a whole" path that completes {@link #failure()}, and the order of a
 * close (the listener, then the connections, then the acceptor, then the workers). What differs,
 * how connections and workers are stopped, each server passes in.
 */
final class ServerLifecycle {

    /** Stops a server's workers; may wait for them. */
    interface Stopper {
        void stop() throws InterruptedException;
    }

    private final String name;
    private final Logger log;
    private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
    private volatile boolean closing;
    private Thread acceptThread;

    ServerLifecycle(String name, Logger log) {
        this.name = name;
        this.log = log;
    }

    /** True from the first close on; errors seen after that are the shutdown's, not news. */
    boolean isClosing() {
        return closing;
    }

    CompletableFuture<Throwable> failure() {
        return failure;
    }

    /**
     * Runs {@code acceptor} on the server's accept thread; if that thread dies, the server fails.
     */
    void startAcceptor(Runnable acceptor, Runnable closeServer) {
        acceptThread =
                Thread.ofPlatform()
                        .name(name + "-accept")
                        .daemon()
                        .start(
                                () -> {
                                    try {
                                        acceptor.run();
                                    } catch (Throwable t) {
                                        fatal("accept thread", t, closeServer);
                                    }
                                });
    }

    /**
     * The server cannot go on: log once, complete {@link #failure()} so that the process can exit
     * non-zero instead of staying half alive, and close the server from a thread of its own (the
     * failing thread may be one that the close waits for).
     */
    void fatal(String what, Throwable t, Runnable closeServer) {
        if (closing) {
            return;
        }
        log.error("{}: {} failed, shutting the server down: {}", name, what, t.toString());
        failure.complete(t);
        Thread.ofPlatform().name(name + "-fatal-close").daemon().start(closeServer);
    }

    /**
     * Marks the server closing. True only for the first close of a started server: that caller goes
     * on to {@link #stop}. Call it under the lock that {@code start} holds, so that a close racing
     * a start sees either no listener or a whole one.
     */
    boolean beginClose(boolean started) {
        boolean first = !closing && started;
        closing = true;
        return first;
    }

    /**
     * Closes the listener, then the open connections, waits (up to 5 s) for the accept thread, then
     * stops the workers.
     */
    void stop(Closeable listener, Runnable closeConnections, Stopper workers) {
        try {
            listener.close();
        } catch (IOException e) {
            log.debug("{}: closing the listening socket: {}", name, e.toString());
        }
        closeConnections.run();
        try {
            if (acceptThread != null) {
                acceptThread.join(5_000);
            }
            workers.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A listening channel on {@code address} (port 0: a free one), for the event loops.
     *
     * @throws IOException naming the address, if it cannot be bound
     */
    static ServerSocketChannel bindChannel(InetSocketAddress address, int backlog)
            throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address, backlog);
            return channel;
        } catch (IOException e) {
            channel.close();
            throw BaseServer.cannotListen(address, e);
        }
    }

    /** Closes a connection or listener whose close errors no one can act on. */
    static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
