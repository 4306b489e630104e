package dbf0.base.server;

import dbf0.base.io.OutputBuffer;
import dbf0.common.FlushingThread;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One connection's replies that wait for work in flight, in request order. Its one job: let a
 * session submit many writes before it waits for any, and still answer in order.
 *
 * <p>Why: a store with a write-ahead log acknowledges a write only after an fsync, and its log
 * writer puts everything queued at that moment under one fsync (group commit). A session that
 * waited for each write before decoding the next would give the writer one record per fsync from
 * this connection, however many the client pipelined. Submitting every write of a read first, then
 * waiting once, lets them share an fsync; this queue remembers, for each request, the future to
 * wait for and how to answer it, so that the replies still go out in the order the requests came.
 *
 * <p>A store may also hold submitted writes back until it is told to go (a log writes everything
 * pending with one write call at a flush, instead of one call per write). So before anything here
 * waits for writes in flight, it runs the session's {@code beforeWaiting} (the store's flush):
 * every wait is preceded by a flush, without each session having to remember it. The store decides
 * what a flush costs: a log under {@code interval} or {@code never} writes at once (a write call,
 * no fsync), so a read behind its connection's writes finds them done and goes on in the same pass;
 * under {@code always} on an event loop's {@link FlushingThread} the store owes its fsync to the
 * end of the loop's turn ({@link FlushingThread#owe}). A read on an event loop that ends with one
 * write in flight and no reply yet to send (a client that sends one request and waits) owes even a
 * cheap flush to the turn's end, so that one write call serves every such connection of the turn
 * ({@link #LONE_WRITE}).
 *
 * <p>The session decides when to wait (before a read, which must see this connection's own writes;
 * at the end of its input; when {@link #full()}); this class only keeps the order and the bound. It
 * never blocks: {@link #writeCompleted} writes the answers that are ready, and {@link #allDone()}
 * is what the server model waits on (a thread blocks; an event loop gets a wake-up). One thread
 * uses it at a time (the session's); the futures may complete on any.
 */
public final class PendingReplies {

    /**
     * Writes and disk reads in flight at most, per connection, before the session stops decoding
     * and waits: this bounds what one connection can put on the log's queue (or its list of records
     * pending a flush, since the session flushes before it waits), on a disk store's readers, and
     * in memory. One command can pass it (an MSET of many pairs, an MGET or a BATCH of many keys
     * counts them all), bounded by the size of one command.
     */
    public static final int MAX_IN_FLIGHT = 1024;

    /**
     * Writes a request's reply once its future is done.
     *
     * @param <T> the future's result
     */
    @FunctionalInterface
    public interface Answer<T> {
        /**
         * Appends the reply.
         *
         * @param out where the reply goes
         * @param result the future's result, or null if it failed
         * @param failure why the future failed (its cause, unwrapped), or null if it did not
         */
        void write(OutputBuffer out, T result, Throwable failure);
    }

    private record Entry<T>(
            CompletableFuture<T> done, int writes, int reads, Answer<? super T> answer) {
        void writeTo(OutputBuffer out) {
            Throwable failure = failureOf(done);
            answer.write(out, failure == null ? done.join() : null, failure); // done: at once
        }
    }

    /**
     * Why a completed future failed (its cause, unwrapped), or null if it succeeded.
     *
     * @param done a completed future
     * @return the failure, or null
     */
    public static Throwable failureOf(CompletableFuture<?> done) {
        if (!done.isCompletedExceptionally()) {
            return null;
        }
        try {
            done.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (CancellationException e) {
            return e;
        }
    }

    /**
     * The writes in flight at the end of a read, at most, whose flush an event loop puts off to its
     * turn's end (Redis writes its AOF once before it sleeps), if the read left no reply to send: a
     * connection with one request out loses nothing by waiting for the others, and a turn of such
     * connections costs one write call instead of one each. A read that brought more, or answered
     * something already, flushes at once and answers in the same pass: measured, putting off every
     * read's flush held a pipelining client's replies back until the turn's end, its next reads
     * brought fewer requests (socket reads and writes per operation rose by 40-70%), and a log
     * under {@code interval} fell from 0.66-0.70 of no log to 0.57.
     */
    static final int LONE_WRITE = 1;

    private final ArrayDeque<Entry<?>> entries = new ArrayDeque<>();
    private final Runnable beforeWaiting;
    private int inFlight;
    private int readsInFlight;

    /**
     * @param beforeWaiting run before any check of whether writes in flight are done: what makes
     *     the session's submitted writes go ahead (a store's {@code flush}); for work that is done
     *     when submitted, a no-op
     */
    public PendingReplies(Runnable beforeWaiting) {
        this.beforeWaiting = java.util.Objects.requireNonNull(beforeWaiting, "beforeWaiting");
    }

    /**
     * Queues the reply of a request whose {@code writes} writes complete {@code done}.
     *
     * @param <T> the future's result
     * @param done completes when the request's writes are done as the store promises
     * @param writes how many writes it stands for (toward {@link #MAX_IN_FLIGHT})
     * @param answer writes the reply then
     */
    public <T> void add(CompletableFuture<T> done, int writes, Answer<? super T> answer) {
        entries.add(new Entry<>(done, writes, 0, answer));
        inFlight += writes;
    }

    /**
     * Queues the reply of a request that reads {@code reads} keys from a store that may wait for a
     * disk ({@link dbf0.kv.storage.Store#getAsync}): the loop goes on serving other connections
     * while the reads are out, and the reply keeps its place. Reads count toward the same bound as
     * writes ({@link #full()}), but not toward {@link #inFlight()}: a later read need not wait for
     * them, only for this connection's writes.
     *
     * @param <T> the future's result
     * @param done completes when the reads are done
     * @param reads how many keys it reads (toward {@link #MAX_IN_FLIGHT})
     * @param answer writes the reply then
     */
    public <T> void addRead(CompletableFuture<T> done, int reads, Answer<? super T> answer) {
        entries.add(new Entry<>(done, 0, reads, answer));
        readsInFlight += reads;
    }

    /**
     * A reply that needs no waiting (an error found before anything was submitted): appended now if
     * nothing waits, else queued behind what does, so that it keeps its place.
     *
     * @param out the connection's replies
     * @param reply appends the reply
     */
    public void reply(OutputBuffer out, java.util.function.Consumer<OutputBuffer> reply) {
        if (entries.isEmpty()) {
            reply.accept(out);
        } else {
            add(
                    CompletableFuture.completedFuture(null),
                    0,
                    (o, result, failure) -> reply.accept(o));
        }
    }

    /**
     * @return true if no reply waits
     */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /**
     * @return true once {@link #MAX_IN_FLIGHT} writes and reads wait: decode nothing more before
     *     they are answered
     */
    public boolean full() {
        return inFlight + readsInFlight >= MAX_IN_FLIGHT;
    }

    /**
     * @return the writes whose replies wait
     */
    public int inFlight() {
        return inFlight;
    }

    /**
     * @return the reads of a store on disk whose replies wait ({@link #addRead}): while there are
     *     any, a session submits no write, which a read still out could otherwise see
     */
    public int readsInFlight() {
        return readsInFlight;
    }

    /**
     * Appends, in order, the replies whose futures are done, stopping at the first that is not; if
     * one is not, runs {@code beforeWaiting} and looks again; if one still is not, on an event loop
     * owes {@code beforeWaiting} to the end of the turn.
     *
     * @param out the connection's replies
     * @return true if no reply waits any more
     */
    public boolean writeCompleted(OutputBuffer out) {
        if (answerDone(out)) {
            return true;
        }
        beforeWaiting.run();
        if (answerDone(out)) {
            return true;
        }
        FlushingThread loop = FlushingThread.current();
        if (loop != null) {
            loop.owe(beforeWaiting); // the turn's end flushes what is still held back
        }
        return false;
    }

    private boolean answerDone(OutputBuffer out) {
        Entry<?> head;
        while ((head = entries.peek()) != null && head.done().isDone()) {
            entries.poll();
            inFlight -= head.writes();
            readsInFlight -= head.reads();
            head.writeTo(out);
        }
        return entries.isEmpty();
    }

    /**
     * The check a session makes before it decodes another request, the same for every protocol:
     * past {@link #MAX_IN_FLIGHT} writes it answers what is done and, if they are still that many,
     * waits for them; past the output's high-water mark it lets the replies drain first.
     *
     * @param out the connection's replies
     * @return {@link ByteSession.Next#AWAIT} or {@link ByteSession.Next#WRITE_FIRST} to stop
     *     decoding, or null to decode the next request
     */
    public ByteSession.Next beforeDecoding(OutputBuffer out) {
        if (!out.aboveHighWater() && !full()) {
            return null;
        }
        if (!writeCompleted(out) && full()) {
            return ByteSession.Next.AWAIT;
        }
        return out.aboveHighWater() ? ByteSession.Next.WRITE_FIRST : null;
    }

    /**
     * The end of a read: its writes were all submitted, now they are waited for together.
     *
     * @param out the connection's replies
     * @return {@link ByteSession.Next#READ_MORE} once every reply is written, else {@link
     *     ByteSession.Next#AWAIT} (on {@link #allDone()})
     */
    public ByteSession.Next endOfInput(OutputBuffer out) {
        if (answerDone(out)) {
            return ByteSession.Next.READ_MORE;
        }
        FlushingThread loop = FlushingThread.current();
        if (loop != null && inFlight <= LONE_WRITE && out.isEmpty()) {
            loop.owe(beforeWaiting); // the loop resumes this connection after the turn's flush
            return ByteSession.Next.AWAIT;
        }
        return writeCompleted(out) ? ByteSession.Next.READ_MORE : ByteSession.Next.AWAIT;
    }

    /**
     * @return a future that completes (normally, whatever the writes' outcomes) when every queued
     *     reply's future has: the moment {@link #writeCompleted} can answer them all
     */
    public CompletableFuture<Void> allDone() {
        if (!entries.isEmpty()) {
            // the session flushed (or owes a flush) before it chose to wait; this makes sure of it
            FlushingThread.flushOrOwe(beforeWaiting);
        }
        List<CompletableFuture<?>> waiting = new ArrayList<>();
        for (Entry<?> entry : entries) {
            if (!entry.done().isDone()) {
                waiting.add(entry.done());
            }
        }
        // handle(): a failed write is an answer (an error reply), not a reason to stop waiting.
        return CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new))
                .handle((v, e) -> null);
    }
}
