package dbf0.kv.server;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.base.server.PendingReplies;
import dbf0.common.RateLimitedLog;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommands;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespInPlace;
import dbf0.kv.storage.StorageFailureException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.LoggerFactory;

/**
 * The Redis protocol on the server, so that redis-cli, redis-benchmark and Redis client libraries
 * can drive dbf0. A connection speaks RESP2 until HELLO 3 switches it to RESP3; the protocol and
 * the rest of what a connection remembers are in its {@link RespConnection}. Keys and values are
 * the same byte arrays v1 and v2 use: a key set over RESP is visible over v2 and the other way
 * round.
 *
 * <p>Only what a key/value store of byte strings can honestly do is implemented. SET with options
 * (EX, NX, ...) answers an error instead of silently ignoring them; any other command answers
 * {@code -ERR unknown command} and the connection stays open. A malformed or over-limit request
 * gets {@code -ERR Protocol error} and the connection is closed, since its framing can no longer be
 * trusted.
 *
 * <p>Writes (SET, MSET, DEL, FLUSHALL) are submitted and their replies queued: the writes of one
 * read reach the store together, so that a write-ahead log makes them durable with one fsync, and
 * any other command waits for them before it runs ({@link PendingReplies}).
 *
 * <p>GET, SET, MGET, MSET and DEL in their plain forms run in place ({@link RespInPlace}), with no
 * list of argument arrays per command; the parser takes everything else.
 *
 * <p>This class is the connection: parsing, backpressure, the refusal of HTTP and the {@code
 * --no-inline} switch. The commands are in {@link dbf0.kv.server.resp}, one class each, found by
 * name through {@link RespCommands}.
 */
final class RespSession implements ByteSession {

    private static final int MAX_ARGS = 1024 * 1024;
    private static final int MAX_INLINE = 64 * 1024;
    private static final RateLimitedLog HTTP_LOG =
            new RateLimitedLog(LoggerFactory.getLogger(RespSession.class), 5);

    private final ServerContext context;
    private final RespCommands commands;
    private final RespCodec.Parser parser;
    private final RespConnection connection;
    private final RespInPlace inPlace;
    private boolean firstCommand = true;
    private int needed;

    RespSession(ServerContext context) {
        this.context = context;
        int maxBulk = Math.max(context.limits.maxKeyBytes(), context.limits.maxValueBytes());
        // One command, like one v2 frame, holds at most maxFrameBytes: its arguments stay in memory
        // until it is complete, and its reply is built whole.
        this.parser =
                new RespCodec.Parser(MAX_ARGS, maxBulk, MAX_INLINE, context.limits.maxFrameBytes());
        this.connection = new RespConnection(context.nextClientId(), context.store::flush);
        this.commands = context.commands();
        // A cluster node checks every key's slot first, which the fast path does not.
        this.inPlace = context.cluster() == null ? new RespInPlace(connection, context) : null;
    }

    @Override
    public Next onRead(ByteBuffer in, OutputBuffer out) throws ProtocolException {
        PendingReplies pending = connection.pending();
        while (true) {
            if (held != null) {
                // What came behind this connection's writes runs once they are answered: a GET sees
                // them.
                if (!pending.writeCompleted(out)) {
                    return Next.AWAIT;
                }
                Object next = held;
                held = null;
                if (next instanceof ProtocolException fatal) {
                    throw fatal; // its error reply, if any, was queued behind the writes and is
                    // written now
                }
                @SuppressWarnings("unchecked")
                List<byte[]> args = (List<byte[]>) next;
                if (run(args, out)) {
                    return Next.CLOSE_AFTER_WRITE;
                }
            }
            Next pause = pending.beforeDecoding(out); // the rest waits in the input buffer
            if (pause != null) {
                return pause;
            }
            if (inPlace != null && !parser.inArray() && inPlace.tryRun(in, out)) {
                // GET, SET, MGET, MSET, DEL with no garbage; the rest is parsed below
                firstCommand = false;
                needed = 0;
                context.commandsProcessed.increment();
                continue;
            }
            List<byte[]> args;
            try {
                args = nextCommand(in, pending, out);
            } catch (ProtocolException fatal) {
                if (pending.writeCompleted(out)) {
                    throw fatal;
                }
                held = fatal; // the writes before it are still answered, then the connection closes
                continue;
            }
            if (args == null) {
                return pending.endOfInput(out);
            }
            if (args.isEmpty()) {
                continue; // a blank inline line: Redis ignores it too
            }
            firstCommand = false;
            context.commandsProcessed.increment();
            if (!pending.isEmpty()
                    && (pending.readsInFlight() > 0 || !commands.defersReply(args, connection))) {
                // not a write that can join the ones in flight, or a write that a read still out
                // must not see: it waits for them
                held = args;
                continue;
            }
            if (run(args, out)) {
                return Next.CLOSE_AFTER_WRITE;
            }
        }
    }

    /**
     * The next command, or null if the input holds no complete one; refuses HTTP and, if off,
     * inline commands.
     */
    private List<byte[]> nextCommand(ByteBuffer in, PendingReplies pending, OutputBuffer out)
            throws ProtocolException {
        boolean inline = !parser.inArray() && in.hasRemaining() && in.get(in.position()) != '*';
        DecodeResult<List<byte[]>> parsed;
        try {
            parsed = parser.next(in);
        } catch (ProtocolException e) {
            byte[] error = RespCodec.error("ERR " + e.getMessage());
            pending.reply(out, o -> o.put(error));
            throw e;
        }
        List<byte[]> args;
        switch (parsed) {
            case DecodeResult.Incomplete<List<byte[]>> incomplete -> {
                needed = incomplete.neededBytes();
                return null;
            }
            case DecodeResult.Frame<List<byte[]>> frame -> args = frame.value();
            // The parser throws on every error (RESP framing cannot be resynchronised); were it
            // ever to answer one, it is fatal as a thrown one is.
            case DecodeResult.Invalid<List<byte[]>> invalid -> {
                byte[] error = RespCodec.error("ERR " + invalid.message());
                pending.reply(out, o -> o.put(error));
                throw new ProtocolException(invalid.message());
            }
        }
        needed = 0;
        if (inline) {
            refuseHttp(args);
            if (!context.options.inlineCommands() && !args.isEmpty()) {
                byte[] error =
                        RespCodec.error(
                                "ERR inline commands are off on this server (--no-inline): send"
                                        + " RESP arrays, as redis-cli does");
                pending.reply(out, o -> o.put(error));
                throw new ProtocolException(
                        "inline command refused: inline commands are off (--no-inline)");
            }
        }
        return args;
    }

    /** Runs one command; true if the connection should close once its reply is written (QUIT). */
    private boolean run(List<byte[]> args, OutputBuffer out) {
        try {
            return commands.execute(args, connection, context, out);
        } catch (StorageFailureException e) {
            // The write-ahead log could not keep a write: -ERR, as Redis answers when its AOF
            // cannot be written; reads go on. (The writers defer their replies and answer this
            // themselves.)
            out.put(RespCodec.error("ERR not stored: " + e.getMessage().replaceAll("[\r\n]", " ")));
            return false;
        }
    }

    /** A decoded command, or a fatal error, that waits for this connection's writes before it. */
    private Object held;

    @Override
    public CompletableFuture<?> awaiting() {
        return connection
                .pending()
                .allDone(); // asked right after onRead returned AWAIT, nothing changed since
    }

    /**
     * A web page in a local browser can POST to a loopback port, and a capital letter starts an
     * inline command: the request line and headers would be read as commands, and a text/plain body
     * of "SET ..." or "FLUSHALL" lines executed. A line that looks like HTTP (a request line ending
     * in HTTP/x, a POST, or a header such as Host:) closes the connection before anything from it
     * runs, as Redis does.
     */
    private void refuseHttp(List<byte[]> args) throws ProtocolException {
        if (args.isEmpty()) {
            return;
        }
        String first = new String(args.get(0), StandardCharsets.ISO_8859_1);
        String last = new String(args.get(args.size() - 1), StandardCharsets.ISO_8859_1);
        boolean http =
                first.equalsIgnoreCase("POST")
                        || first.endsWith(":")
                        || (args.size() == 3 && last.startsWith("HTTP/")); // METHOD target HTTP/1.1
        if (http) {
            HTTP_LOG.warn(
                    "RESP: closed a connection whose {} looks like HTTP ({}): a browser or a"
                            + " cross-protocol attack; nothing from it was run",
                    firstCommand ? "first line" : "line",
                    printable(first));
            throw new ProtocolException("an HTTP request is not a RESP command; closing");
        }
    }

    private static String printable(String s) {
        String cut = s.length() > 32 ? s.substring(0, 32) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }

    /** Bytes the parser has examined over the connection's life, for tests of its linearity. */
    long parseWork() {
        return parser.examined();
    }

    @Override
    public int bytesNeeded() {
        return needed;
    }

    @Override
    public void onEndOfStream(int unconsumed) throws java.io.EOFException {
        if (unconsumed > 0) {
            throw new java.io.EOFException(
                    "stream ended inside a RESP command, " + unconsumed + " bytes into it");
        }
    }
}
