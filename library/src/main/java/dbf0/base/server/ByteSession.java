package dbf0.base.server;

import dbf0.base.io.OutputBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A protocol's side of one connection: bytes in, bytes out, no sockets. The server model (a thread
 * per connection, or an event loop) owns the socket and calls the session whenever bytes arrive;
 * the session parses what is complete, appends its replies, and says whether to go on.
 *
 * <p>Writing each protocol once against this interface is what lets every server model speak every
 * protocol, and lets tests feed a session bytes split at any boundary.
 */
public interface ByteSession {

    /** What the server should do after {@link #onRead}. */
    enum Next {
        /** Keep the connection and call again when more bytes arrive. */
        READ_MORE,
        /** Send what is in the output buffer, then close (v1's one operation per connection). */
        CLOSE_AFTER_WRITE,
        /**
         * Replies passed {@link OutputBuffer#HIGH_WATER_MARK}: send them, and once they are gone
         * call again with the input still buffered, whether or not new bytes arrive. Stopping here
         * is what keeps one read full of pipelined requests from building an unbounded pile of
         * replies.
         */
        WRITE_FIRST,
        /**
         * The session waits for work in flight (writes a log has not made durable yet) before it
         * can answer or decode more: once {@link #awaiting()} completes, call again with the input
         * still buffered, whether or not new bytes arrive. Send the replies already written
         * meanwhile, but read nothing new. A thread per connection simply blocks on the future; an
         * event loop stops reading the connection and serves its others until the future's
         * completion wakes it.
         */
        AWAIT
    }

    /**
     * Consumes every complete request at the front of {@code in} (which is in read mode; leave the
     * bytes of an incomplete request unconsumed) and appends the replies to {@code out}. Before
     * decoding each request a session checks {@link OutputBuffer#aboveHighWater()} and, if so,
     * returns {@link Next#WRITE_FIRST} leaving the rest unconsumed: unsent replies then stay below
     * the high-water mark plus one reply.
     *
     * @throws IOException when the stream can no longer be trusted: the server sends what is
     *     already in {@code out} (an error reply, for instance), closes, and logs one line
     */
    Next onRead(ByteBuffer in, OutputBuffer out) throws IOException;

    /**
     * After {@link Next#AWAIT}: the future to wait for. It completes normally (a failed write is
     * answered with an error reply, not by failing this future), possibly on another thread.
     *
     * @return the future that ends the wait
     */
    default CompletableFuture<?> awaiting() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * How many bytes the input buffer must be able to hold for the next call to make progress; the
     * server grows its buffer to this (protocols bound it by their frame limit).
     */
    default int bytesNeeded() {
        return 0;
    }

    /**
     * The peer closed its side. {@code unconsumed} bytes of an incomplete request were left.
     *
     * @throws IOException to have the connection counted and logged as failed (a request cut off)
     */
    void onEndOfStream(int unconsumed) throws IOException;
}
