package dbf0.kv.client;

import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The machinery under {@link KeyValueClient}: one protocol v2 connection that any number of threads
 * share, with many requests on the way at once. How replies find their requests: the server answers
 * in request order, so each request, as its frame goes out, queues a {@link PendingReply} in that
 * same order, and a reader thread completes the oldest one with each reply it reads. Writers and
 * the reader never wait for each other across socket I/O: writers take the write lock, the reader
 * only the queue's, and that one briefly. {@link KeyValueClient}'s class comment says what callers
 * may rely on.
 */
final class PipelinedConnection {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final ProtocolLimits limits;

    /**
     * Held across a whole frame's write, so frames never interleave and the queue's order is the
     * wire's order. Only writers take it: the reader must never wait behind a blocked write. A
     * ReentrantLock, not a monitor: on JDK 21 a virtual thread blocked inside {@code synchronized}
     * pins its carrier, and virtual callers stuck on a full socket could pin every carrier.
     */
    private final ReentrantLock writeLock = new ReentrantLock();

    /**
     * Requests sent (or being sent) and not yet answered, oldest first; its monitor is held only
     * briefly.
     */
    private final ArrayDeque<PendingReply<?>> waiting = new ArrayDeque<>();

    private final Thread reader;
    private IOException failure; // guarded by waiting; set once, by the first failure or close()

    /**
     * Sends the v2 preamble on a connected socket and starts the reader thread.
     *
     * @param limits checked before a request is sent, and applied to the replies read
     */
    PipelinedConnection(Socket socket, ProtocolLimits limits) throws IOException {
        this.socket = socket;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        this.limits = limits;
        V2Codec.writePreamble(out);
        // A platform thread: a virtual reader would park in the JDK's poller on every read and be
        // woken through a carrier thread, two more hand-offs per reply than a blocking read.
        this.reader =
                Thread.ofPlatform().daemon().name("kv-client-reader").start(this::readReplies);
    }

    /**
     * Queues the request's future, then writes its frame, both under the write lock, so that the
     * queue's order is the wire's order. The future is queued first because the reply may arrive as
     * soon as the last byte is out. The queue's own lock is released before the write, which may
     * block for as long as the server does not read. The request is checked against the limits
     * before anything is sent.
     */
    <T> CompletableFuture<T> send(Request request, Function<Response, T> convert) {
        CompletableFuture<T> future = new CompletableFuture<>();
        byte[] frame;
        try {
            frame = V2Codec.encode(request, limits);
        } catch (IllegalArgumentException e) {
            future.completeExceptionally(e);
            return future;
        }
        writeLock.lock();
        try {
            IOException failed;
            synchronized (waiting) {
                failed = failure;
                if (failed == null) {
                    waiting.add(new PendingReply<>(future, convert));
                }
            }
            if (failed != null) {
                future.completeExceptionally(failed);
                return future;
            }
            try {
                out.write(frame);
                out.flush();
            } catch (IOException e) {
                // Fails this request too: it is in the queue. After close() the first cause
                // (closed) wins.
                fail(new ConnectionClosedException("could not send: " + e.getMessage(), e));
            }
        } finally {
            writeLock.unlock();
        }
        return future;
    }

    /** The reader thread: each reply completes the oldest request waiting, until the end. */
    private void readReplies() {
        try {
            while (true) {
                DecodeResult.Complete<Response> result = V2Codec.readResponse(in, limits);
                PendingReply<?> pending;
                synchronized (waiting) {
                    pending = waiting.poll();
                }
                if (pending == null) {
                    throw new IOException("the server sent a reply to no request");
                }
                switch (result) {
                    case DecodeResult.Frame<Response> frame -> pending.complete(frame.value());
                    case DecodeResult.Invalid<Response> invalid ->
                            pending.future()
                                    .completeExceptionally(
                                            new IOException(
                                                    "malformed reply: " + invalid.message()));
                }
            }
        } catch (IOException e) {
            fail(new ConnectionClosedException("connection closed: " + e.getMessage(), e));
        }
    }

    /**
     * Records the first failure, closes the socket (which releases a writer blocked on it and the
     * reader), and fails every waiting request. Takes the queue's lock only to empty it: futures
     * are completed outside it, since their callbacks may run any code, even send again.
     */
    private void fail(IOException cause) {
        List<PendingReply<?>> failed;
        IOException reason;
        synchronized (waiting) {
            if (failure == null) {
                failure = cause;
            }
            reason = failure;
            failed = new ArrayList<>(waiting);
            waiting.clear();
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // already failing
        }
        for (PendingReply<?> pending : failed) {
            pending.future().completeExceptionally(reason);
        }
    }

    /**
     * Closes the connection as {@link KeyValueClient#close()} says, then waits up to {@code wait}
     * for the reader thread to end. Never waits for a writer.
     */
    void close(Duration wait) {
        fail(new ConnectionClosedException("client closed", null));
        try {
            reader.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
