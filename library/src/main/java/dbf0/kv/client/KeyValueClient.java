package dbf0.kv.client;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client for library users: one persistent protocol v2 connection to a dbf0 server.
 *
 * <pre>{@code
 * try (KeyValueClient client = KeyValueClient.connect(new InetSocketAddress("127.0.0.1", 9000))) {
 *   client.set(key, value);                       // acknowledged by the server
 *   ByteArrayWrapper v = client.get(key);         // null when absent
 *   boolean removed = client.delete(key);
 *
 *   // Pipelining: send many requests before the first reply is back.
 *   List<CompletableFuture<ByteArrayWrapper>> futures =
 *       keys.stream().map(client::getAsync).toList();
 * }
 * }</pre>
 *
 * <p>Replies arrive in request order, so a reader thread completes the oldest waiting future with
 * each reply. Memory per client: two 64 KiB buffers, the waiting queue, and that thread's stack (a
 * platform thread's: the JVM's -Xss, 1 MiB reserved by default). An ERROR reply fails that request
 * with {@link ServerErrorException}; a broken or closed connection fails every waiting request with
 * {@link ConnectionClosedException}.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once.
 *
 * <ul>
 *   <li>Order: requests go on the wire one whole frame at a time, in the order their calls took the
 *       client's write lock; so one thread's requests leave in the order it made them, and several
 *       threads' requests interleave frame by frame, never byte by byte. Each request's waiting
 *       entry is queued in that same order, which is how replies find their requests.
 *   <li>Blocking: a call blocks while its own frame is written (behind any frames other threads are
 *       writing), and the blocking methods then wait for the reply, up to the timeout. When the
 *       server applies backpressure (its replies are unread, so it stops reading), writers wait for
 *       socket space; the reader thread never waits for them, so replies keep being read and the
 *       server can make progress. Reading replies needs only a short lock on the queue of waiting
 *       requests, which is never held across socket I/O.
 *   <li>{@link #close()} may be called from any thread at any time, also while other threads are
 *       blocked in a write or waiting for a reply: it closes the socket, which releases them, and
 *       fails every waiting request (and any sent afterwards) with {@link
 *       ConnectionClosedException}.
 *   <li>Replies complete their futures on the reader thread (failures, on the thread that saw
 *       them), so callbacks attached with {@code thenApply} and friends run there: they must not
 *       block, and in particular must not call this client's blocking methods (the reply they wait
 *       for could only be read by the thread they are blocking). Use the {@code ...Async} variants
 *       for such work.
 * </ul>
 *
 * <p><b>The {@code ...Async} methods</b> pipeline: each returns as soon as its request is written,
 * without waiting for the reply, so many requests can be on the way at once. They are not free of
 * blocking: the frame is written on the calling thread under the write lock, so the call waits
 * behind other writers and, when the server applies backpressure, for socket space. Their futures
 * have no timeout of their own (use {@link CompletableFuture#get(long, TimeUnit)} or {@link
 * CompletableFuture#orTimeout}); the failures they complete with are:
 *
 * <ul>
 *   <li>{@link ServerErrorException}: the server answered this request with an ERROR reply; the
 *       connection stays usable.
 *   <li>{@link ConnectionClosedException}: the connection closed or broke before the reply came
 *       (the request may or may not have been applied), or was already closed when the call was
 *       made (then nothing was sent).
 *   <li>{@link IllegalArgumentException}: the request is over this client's {@link ProtocolLimits};
 *       nothing was sent, the connection is untouched.
 *   <li>{@link java.io.IOException}: the server's reply to this request was malformed; {@link
 *       IllegalStateException}: the reply was of the wrong kind (a server bug).
 * </ul>
 *
 * A failure of the connection fails every future still waiting, on the thread that saw it (the
 * reader, a writer, or the thread calling {@link #close()}). A future failed by the call itself
 * (over a limit, client closed) is returned already completed, so callbacks attached to it run at
 * once on the attaching thread.
 *
 * <p>The blocking methods are their {@code ...Async} counterparts followed by a wait of at most the
 * client's timeout: they throw the same failures unwrapped (the {@link java.io.IOException}s as
 * such, {@link IllegalArgumentException} and {@link IllegalStateException} as they are), and an
 * {@link java.io.IOException} when no reply came in time. A request whose wait timed out stays on
 * the connection: its late reply is read and discarded, and later requests are unaffected.
 */
public final class KeyValueClient implements AutoCloseable {

    private final PipelinedConnection connection;
    private final Duration timeout;

    private KeyValueClient(Socket socket, ProtocolLimits limits, Duration timeout)
            throws IOException {
        this.connection = new PipelinedConnection(socket, limits);
        this.timeout = timeout;
    }

    /**
     * Connects with the default limits and a 10 s timeout for connecting and for each reply.
     *
     * @param address the server's address
     * @return a connected client; close it when done
     * @throws IOException if the connection cannot be made within the timeout
     */
    public static KeyValueClient connect(InetSocketAddress address) throws IOException {
        return connect(address, ProtocolLimits.DEFAULTS, Duration.ofSeconds(10));
    }

    /**
     * Connects to {@code host:port} with the default limits and a 10 s timeout.
     *
     * @param host the server's host name or address
     * @param port the server's port
     * @return a connected client; close it when done
     * @throws IOException if the connection cannot be made within the timeout
     */
    public static KeyValueClient connect(String host, int port) throws IOException {
        return connect(new InetSocketAddress(host, port));
    }

    /**
     * Connects with the given limits and timeout.
     *
     * @param address the server's address
     * @param limits the largest keys and values this client will send (the server has its own)
     * @param timeout how long to wait for the connection, and for each reply in the blocking calls
     * @return a connected client; close it when done
     * @throws IOException if the connection cannot be made within the timeout
     */
    public static KeyValueClient connect(
            InetSocketAddress address, ProtocolLimits limits, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, (int) timeout.toMillis());
            return new KeyValueClient(socket, limits, timeout);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Reads one key, waiting for the reply up to the client's timeout.
     *
     * @param key the key
     * @return the value stored under {@code key}, or null if there is none
     * @throws IOException if the reply does not come within the timeout, the connection closes
     *     ({@link ConnectionClosedException}) or the server answers with an error ({@link
     *     ServerErrorException})
     */
    public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
        return await(getAsync(key));
    }

    /**
     * Stores {@code value} under {@code key}; returns once the server has applied it.
     *
     * @param key the key
     * @param value the value
     * @throws IOException as for {@link #get}; on a timeout or a closed connection the SET may or
     *     may not have been applied
     */
    public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
        await(setAsync(key, value));
    }

    /**
     * Removes {@code key}, waiting for the reply up to the client's timeout.
     *
     * @param key the key
     * @return true if the key was there
     * @throws IOException as for {@link #get}
     */
    public boolean delete(ByteArrayWrapper key) throws IOException {
        return await(deleteAsync(key));
    }

    /**
     * A round trip that touches no data.
     *
     * @throws IOException as for {@link #get}
     */
    public void ping() throws IOException {
        await(send(new Request.Ping(), r -> null));
    }

    /**
     * Sends many operations in one frame; the replies come back in the same order (VALUE,
     * NOT_FOUND, OK, or ERROR for an operation that failed).
     *
     * @param ops the operations (GET, SET, DELETE), applied in order
     * @return one reply per operation, in the same order
     * @throws IOException as for {@link #get}; an ERROR for the whole batch (for example replies
     *     that would outgrow the frame limit, when nothing is applied) is a {@link
     *     ServerErrorException}
     */
    public List<Response> batch(List<Request> ops) throws IOException {
        return await(batchAsync(ops));
    }

    /**
     * Sends a GET without waiting for its reply (see the class comment for ordering, threads and
     * failures).
     *
     * @param key the key
     * @return a future completed with the value, or with null if there is none
     */
    public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
        return send(
                new Request.Get(key),
                r ->
                        switch (r) {
                            case Response.Value v -> v.value();
                            case Response.NotFound n -> null;
                            default -> throw unexpected("GET", r);
                        });
    }

    /**
     * Sends a SET without waiting for its reply (see the class comment for ordering, threads and
     * failures). Requests sent by one thread are applied in the order it sent them.
     *
     * @param key the key
     * @param value the value
     * @return a future completed with null once the server has applied the SET
     */
    public CompletableFuture<Void> setAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
        return send(
                new Request.Set(key, value),
                r -> {
                    if (!(r instanceof Response.Ok)) {
                        throw unexpected("SET", r);
                    }
                    return null;
                });
    }

    /**
     * Sends a DELETE without waiting for its reply (see the class comment for ordering, threads and
     * failures).
     *
     * @param key the key
     * @return a future completed with true if the key was there and is now removed, false if not
     */
    public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
        return send(
                new Request.Delete(key),
                r ->
                        switch (r) {
                            case Response.Ok ok -> true;
                            case Response.NotFound n -> false;
                            default -> throw unexpected("DELETE", r);
                        });
    }

    /**
     * Sends a BATCH without waiting for its reply (see the class comment for ordering, threads and
     * failures).
     *
     * @param ops the operations (GET, SET, DELETE), applied in order
     * @return a future completed with one reply per operation, in the same order (an operation that
     *     failed has an ERROR reply in its place); failed with {@link ServerErrorException} when
     *     the server refuses the whole batch
     */
    public CompletableFuture<List<Response>> batchAsync(List<Request> ops) {
        Request.Batch batch = new Request.Batch(ops);
        return send(
                batch,
                r -> {
                    if (r instanceof Response.Batch replies
                            && replies.replies().size() == ops.size()) {
                        return replies.replies();
                    }
                    throw unexpected("BATCH of " + ops.size(), r);
                });
    }

    /**
     * Reads one page of a key range in key order, waiting up to the timeout. A reply whose {@code
     * more()} is true stopped early (at the limit or the server's caps): ask again with {@code new
     * Request.Range(lastKey, true, end, limit)}. A server whose store keeps no order (a hash map)
     * answers with a {@link ServerErrorException}.
     *
     * @param range the start key, whether to leave it out, the end key (empty: no end), the limit
     * @return the pairs, and whether the range may hold more after the last one
     * @throws IOException as for {@link #get}
     */
    public Response.Range scan(Request.Range range) throws IOException {
        return await(scanAsync(range));
    }

    /**
     * Sends a RANGE without waiting for its reply; see {@link #scan} and the class comment.
     *
     * @param range as for {@link #scan}
     * @return a future completed with the page
     */
    public CompletableFuture<Response.Range> scanAsync(Request.Range range) {
        return send(
                range,
                r -> {
                    if (r instanceof Response.Range page) {
                        return page;
                    }
                    throw unexpected("RANGE", r);
                });
    }

    private static IllegalStateException unexpected(String request, Response response) {
        return new IllegalStateException("unexpected reply to " + request + ": " + response);
    }

    /** Sends any request, TOPOLOGY too ({@link SlotPlacement}); see {@link PipelinedConnection}. */
    <T> CompletableFuture<T> send(Request request, Function<Response, T> convert) {
        return connection.send(request, convert);
    }

    private <T> T await(CompletableFuture<T> future) throws IOException {
        return BlockingCalls.await(future, timeout);
    }

    /**
     * Closes the connection; requests still waiting, and threads blocked sending, fail with {@link
     * ConnectionClosedException}. Never waits for a writer: safe to call while one is blocked.
     */
    @Override
    public void close() {
        connection.close(timeout);
    }
}
