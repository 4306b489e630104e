package dbf0.kv.check;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records what clients asked a store and what they were told, as they run, into a file in the dbf0
 * JSON Lines format that {@link Dbf0HistoryFormat} reads (docs/formats.md). The benchmark and the
 * race demo use it for {@code --history}.
 *
 * <p>Each client thread takes its own {@link Log} and appends to it without locks: an operation is
 * a few array stores. Full chunks of a log go to one writer thread, which formats and writes them,
 * so the clients never wait for the disk (the queue's lock is taken once per {@value #CHUNK}
 * operations).
 *
 * <p>At most {@code limit} operations are recorded; after that the run goes on and nothing more is.
 * Cutting a history must not make a correct store look wrong: a read could have seen a write that
 * was not recorded. So a client calls {@link Log#admit()} before it sends an operation, and once
 * any admission has failed, every read that completes afterwards is written as pending (it
 * constrains nothing). Every write that was not recorded was sent after that moment, so every read
 * still recorded as completed finished before any of them could take effect: the recorded part of a
 * linearizable run is itself linearizable.
 */
public final class HistoryRecorder implements AutoCloseable {

    /** The operations a history records. */
    public enum Op {
        SET("set"),
        GET("get"),
        DELETE("delete");

        final String name;

        Op(String name) {
            this.name = name;
        }
    }

    private static final int CHUNK = 1024;

    /**
     * Admissions are taken from the shared count this many at a time, so the count is not contended
     * per operation.
     */
    private static final int BLOCK = 64;

    private static final byte OK = 0;
    private static final byte PENDING = 1;
    private static final byte FAIL = 2;
    private static final long NONE = Long.MIN_VALUE;

    /**
     * Operations in one log's buffer; arrays rather than objects, so recording allocates nothing
     * but the chunk.
     */
    private static final class Chunk {
        final int[] client = new int[CHUNK];
        final Op[] op = new Op[CHUNK];
        final byte[][] key = new byte[CHUNK][];
        final byte[][] value = new byte[CHUNK][];
        final Boolean[] found = new Boolean[CHUNK];
        final long[] invoke = new long[CHUNK];
        final long[] complete = new long[CHUNK];
        final byte[] status = new byte[CHUNK];
        int size;
    }

    private static final Chunk END = new Chunk();

    private final long limit;
    private final AtomicLong admitted = new AtomicLong();
    private volatile boolean full;
    private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    private final List<Log> logs = new ArrayList<>();
    private final OutputStream out;
    private final Thread writer;
    private volatile IOException failure;
    private long written;
    private boolean closed;

    private HistoryRecorder(Path file, long limit) throws IOException {
        if (limit < 0) {
            throw new IllegalArgumentException("history limit must not be negative, got " + limit);
        }
        this.limit = limit;
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        this.writer = Thread.ofPlatform().name("history-writer").daemon().start(this::writeChunks);
    }

    /**
     * Creates (or truncates) {@code file} and starts the writer; record at most {@code limit}
     * operations.
     */
    public static HistoryRecorder open(Path file, long limit) throws IOException {
        return new HistoryRecorder(file, limit);
    }

    /** A log for one thread; a thread may record for several clients (connections) through it. */
    public synchronized Log log() {
        if (closed) {
            throw new IllegalStateException("history already closed");
        }
        Log log = new Log();
        logs.add(log);
        return log;
    }

    /** What was recorded, once {@link #close()} has returned. */
    public record Summary(long operations, boolean truncated) {}

    /**
     * Writes what the logs still hold and closes the file. Call it after every client thread has
     * stopped: a log belongs to its thread until then.
     */
    public synchronized Summary finish() throws IOException {
        if (!closed) {
            closed = true;
            for (Log log : logs) {
                log.handOver();
            }
            queue.add(END);
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing the history", e);
            }
            out.close();
        }
        if (failure != null) {
            throw failure;
        }
        return new Summary(written, full);
    }

    @Override
    public void close() throws IOException {
        finish();
    }

    private void writeChunks() {
        try {
            LineEncoder encoder = new LineEncoder();
            for (Chunk c = queue.take(); c != END; c = queue.take()) {
                for (int i = 0; i < c.size; i++) {
                    encoder.line(
                            out,
                            c.client[i],
                            c.op[i],
                            c.key[i],
                            c.value[i],
                            c.found[i],
                            c.invoke[i],
                            c.complete[i],
                            c.status[i]);
                }
                written += c.size;
            }
        } catch (IOException e) {
            failure = e;
            queue.clear(); // the clients keep handing over chunks; let them go rather than pile up
        } catch (InterruptedException e) {
            failure = new IOException("history writer interrupted", e);
        }
    }

    /**
     * Writes the same bytes as {@link Dbf0HistoryFormat#line} plus a newline, but into one reused
     * byte array, without building strings: formatting is the recorder's main cost, and at a few
     * hundred thousand operations a second it competes with the clients for the CPU.
     */
    static final class LineEncoder {
        private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        private byte[] buf = new byte[256];
        private int pos;

        void line(
                OutputStream out,
                int client,
                Op op,
                byte[] key,
                byte[] value,
                Boolean found,
                long invoke,
                long complete,
                byte status)
                throws IOException {
            int need = 200 + 2 * key.length + (value == null ? 0 : 2 * value.length);
            if (buf.length < need) {
                buf = new byte[need];
            }
            pos = 0;
            ascii("{\"client\":");
            number(client);
            ascii(",\"op\":\"");
            ascii(op.name);
            ascii("\",\"key\":\"");
            hex(key);
            ascii("\",\"value\":");
            if (value == null) {
                ascii("null");
            } else {
                buf[pos++] = '"';
                hex(value);
                buf[pos++] = '"';
            }
            ascii(",\"found\":");
            ascii(found == null ? "null" : found.toString());
            ascii(",\"invoke_ns\":");
            number(invoke);
            ascii(",\"complete_ns\":");
            if (complete == NONE) {
                ascii("null");
            } else {
                number(complete);
            }
            ascii(
                    switch (status) {
                        case OK -> ",\"status\":\"ok\"}\n";
                        case FAIL -> ",\"status\":\"fail\"}\n";
                        default -> ",\"status\":\"pending\"}\n";
                    });
            out.write(buf, 0, pos);
        }

        private void ascii(String s) {
            for (int i = 0; i < s.length(); i++) {
                buf[pos++] = (byte) s.charAt(i);
            }
        }

        private void hex(byte[] bytes) {
            for (byte b : bytes) {
                buf[pos++] = HEX[(b >> 4) & 0xf];
                buf[pos++] = HEX[b & 0xf];
            }
        }

        private void number(long v) {
            if (v == Long.MIN_VALUE) { // no positive counterpart: let Long do it
                ascii(Long.toString(v));
                return;
            }
            if (v < 0) {
                buf[pos++] = '-';
                v = -v;
            }
            int start = pos;
            do {
                buf[pos++] = (byte) ('0' + v % 10);
                v /= 10;
            } while (v != 0);
            for (int i = start, j = pos - 1; i < j; i++, j--) { // the digits came out backwards
                byte t = buf[i];
                buf[i] = buf[j];
                buf[j] = t;
            }
        }
    }

    /** One thread's buffer. Not thread-safe: only the thread that took it may use it. */
    public final class Log {
        private Chunk chunk = new Chunk();
        private long left;

        private Log() {}

        /**
         * Whether the operation about to be sent is to be recorded. Call it before sending, and for
         * each admitted operation record exactly one outcome: {@link #completed}, {@link #pending}
         * or {@link #failed}.
         */
        public boolean admit() {
            if (full) {
                return false;
            }
            if (left == 0) {
                long first = admitted.getAndAdd(BLOCK);
                if (first >= limit) {
                    full = true; // before the caller sends: see the class comment
                    return false;
                }
                left = Math.min(BLOCK, limit - first);
            }
            left--;
            return true;
        }

        /**
         * An operation whose answer came: {@code value} is what a SET wrote or what a GET read
         * (null when not found), {@code found} whether a GET (or DELETE) found the key.
         */
        public void completed(
                int client,
                Op op,
                byte[] key,
                byte[] value,
                Boolean found,
                long invokeNs,
                long completeNs) {
            // An answer that came after the history was cut may reflect a write that is not in it:
            // such a GET is kept as pending (it constrains nothing), such a DELETE loses its
            // "found".
            if (full && op == Op.GET) {
                add(client, op, key, null, null, invokeNs, completeNs, PENDING);
                return;
            }
            add(
                    client,
                    op,
                    key,
                    value,
                    full && op == Op.DELETE ? null : found,
                    invokeNs,
                    completeNs,
                    OK);
        }

        /**
         * An operation whose outcome the client does not know: it may have taken effect at any time
         * after {@code invokeNs}, or never. {@code lastSeenNs}, if not null, is only for display.
         */
        public void pending(
                int client, Op op, byte[] key, byte[] value, long invokeNs, Long lastSeenNs) {
            add(
                    client,
                    op,
                    key,
                    op == Op.GET ? null : value,
                    null,
                    invokeNs,
                    lastSeenNs == null ? NONE : lastSeenNs,
                    PENDING);
        }

        /**
         * An operation that definitely did not take effect: the store refused it before running it
         * (a redirect, no leader, a connection that never opened). The checker drops it; it is kept
         * so that the file tells what the clients tried. {@code completeNs} is when the client gave
         * up.
         */
        public void failed(
                int client, Op op, byte[] key, byte[] value, long invokeNs, long completeNs) {
            add(client, op, key, op == Op.GET ? null : value, null, invokeNs, completeNs, FAIL);
        }

        private void add(
                int client,
                Op op,
                byte[] key,
                byte[] value,
                Boolean found,
                long invoke,
                long complete,
                byte status) {
            Chunk c = chunk;
            int i = c.size++;
            c.client[i] = client;
            c.op[i] = op;
            c.key[i] = key;
            c.value[i] = value;
            c.found[i] = found;
            c.invoke[i] = invoke;
            c.complete[i] = complete;
            c.status[i] = status;
            if (c.size == CHUNK) {
                handOver();
            }
        }

        private void handOver() {
            if (chunk.size > 0 && failure == null) {
                queue.add(chunk);
            }
            chunk = new Chunk();
        }
    }
}
