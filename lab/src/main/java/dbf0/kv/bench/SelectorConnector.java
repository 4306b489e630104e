package dbf0.kv.bench;

import dbf0.base.client.BaseConnector;
import dbf0.base.io.InputBuffer;
import dbf0.base.io.OutputBuffer;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connector whose one thread drives many protocol v2 connections through a selector, the way
 * redis-benchmark drives its clients: each connection keeps up to {@code window} frames of {@code
 * batchSize} operations in flight, and the thread serves whichever connections have replies. With
 * 1,000 connections that is one thread instead of 1,000 blocked ones, so a run measures the server
 * holding the connections, not the scheduler juggling the clients.
 *
 * <p>Not order-preserving: the generator's operations are spread over the connections.
 */
final class SelectorConnector extends BaseConnector {

    private static final Logger LOG = LoggerFactory.getLogger(SelectorConnector.class);
    private static final int BUFFER_BYTES = 16 * 1024;

    /** How long the last in-flight replies may take after stop() before the connections close. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    /**
     * One connection: its buffers and its frames in flight, oldest first (a ring of send times).
     */
    private final class Connection {
        final SocketChannel channel;
        final InputBuffer input = new InputBuffer(BUFFER_BYTES);
        final OutputBuffer output = new OutputBuffer(BUFFER_BYTES);
        final long[] sentAt = new long[window];
        final byte[][] kinds = new byte[window][];
        int oldest;
        int inFlight;
        SelectionKey key;
        FrameHistory history; // null unless --history

        Connection(SocketChannel channel) {
            this.channel = channel;
        }
    }

    private final int connections;
    private final FrameSource frames;
    private final int window;
    private final int batchSize;
    private final ProtocolLimits limits = ProtocolLimits.DEFAULTS;
    private HistoryRecorder.Log historyLog;
    private int firstClient;

    SelectorConnector(
            String name,
            InetSocketAddress address,
            int connections,
            FrameSource frames,
            V2Load load) {
        super(address, name);
        this.connections = connections;
        this.frames = frames;
        this.window = load.window();
        this.batchSize = load.batchSize();
    }

    /**
     * Records every connection's operations into {@code log}; the connections are clients {@code
     * firstClient}, {@code firstClient + 1}, ...
     */
    void recordHistory(HistoryRecorder.Log log, int firstClient) {
        this.historyLog = log;
        this.firstClient = firstClient;
    }

    @Override
    public void run() {
        List<Connection> open = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections && !isStopped(); i++) {
                SocketChannel channel = SocketChannel.open();
                Connection c = new Connection(channel);
                if (historyLog != null) {
                    c.history = new FrameHistory(historyLog, firstClient + i, window);
                }
                open.add(c);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                // blocking, with the timeout the other clients use: the server's accept queue paces
                // us
                channel.socket().connect(getServerAddress(), CONNECT_TIMEOUT_MILLIS);
                channel.configureBlocking(false);
                c.key = channel.register(selector, SelectionKey.OP_READ, c);
                c.output.put(V2Codec.preamble());
                refill(c);
            }
            while (!isStopped()) {
                selector.select(key -> serve((Connection) key.attachment(), key), 100);
            }
            drain(selector, open);
        } catch (IOException | RuntimeException e) {
            if (!isStopped()) {
                countError(e);
            }
        } finally {
            for (Connection c : open) {
                if (c.history != null) {
                    for (int i = 0; i < c.inFlight; i++) {
                        c.history.unanswered(
                                (c.oldest + i) % window); // sent, never answered: outcome unknown
                    }
                }
                try {
                    c.channel.close();
                } catch (IOException ignored) {
                    // closing after the run: nothing left to report
                }
            }
        }
    }

    /** Reads what a connection has, accounts for every whole reply, and tops its window up. */
    private void serve(Connection c, SelectionKey key) {
        try {
            if (key.isReadable()) {
                ByteBuffer buffer = c.input.forWriting(BUFFER_BYTES);
                if (c.channel.read(buffer) < 0) {
                    throw new IOException("the server closed the connection");
                }
                ByteBuffer in = c.input.forReading();
                try {
                    while (c.inFlight > 0) {
                        DecodeResult<Response> result = V2Codec.decodeResponse(in, limits);
                        if (!(result instanceof DecodeResult.Complete<Response> reply)) {
                            break;
                        }
                        long sent = c.sentAt[c.oldest];
                        byte[] kinds = c.kinds[c.oldest];
                        long now = System.nanoTime();
                        if (c.history != null) {
                            c.history.answered(c.oldest, reply, now);
                        }
                        c.oldest = (c.oldest + 1) % window;
                        c.inFlight--;
                        countErrors(
                                FrameSource.account(
                                        reply, kinds, sent, now, getStats(), getLatencies()));
                    }
                } finally {
                    c.input.afterReading();
                }
            }
            if (isStopped()) {
                flush(c); // finish what was queued, send nothing new
            } else {
                refill(c);
            }
        } catch (IOException | RuntimeException e) {
            countError(e);
            key.cancel();
            if (c.history != null) {
                for (int i = 0; i < c.inFlight; i++) {
                    c.history.unanswered(
                            (c.oldest + i) % window); // sent, never answered: outcome unknown
                }
            }
            c.inFlight = 0; // nothing more will come on it
        }
    }

    /** Fills the connection's window with new frames and writes them in one go. */
    private void refill(Connection c) throws IOException {
        while (c.inFlight < window) {
            int slot = (c.oldest + c.inFlight) % window;
            FrameSource.Frame frame = frames.next(batchSize, false);
            Request request = frame.request();
            if (c.history != null) {
                c.history.sending(slot, request); // invoke time before encoding
            }
            V2Codec.encode(request, c.output.reserve(V2Codec.encodedSize(request)), limits);
            c.kinds[slot] = frame.kinds();
            c.sentAt[slot] = System.nanoTime();
            c.inFlight++;
        }
        flush(c);
    }

    /** Writes what the socket takes now; asks for OP_WRITE if the rest must wait. */
    private void flush(Connection c) throws IOException {
        boolean done = c.output.writeTo(c.channel);
        c.key.interestOps(
                done ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
    }

    /**
     * After stop(): lets the replies in flight arrive, for a bounded time, so no server write is
     * reset. A connection still waiting after that counts as an error: the server never answered it
     * (a pool with fewer threads than connections, for one, serves only the first ones).
     */
    private void drain(Selector selector, List<Connection> open) throws IOException {
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (open.stream().anyMatch(c -> c.inFlight > 0) && System.nanoTime() < deadline) {
            selector.select(key -> serve((Connection) key.attachment(), key), 100);
        }
        long unanswered = open.stream().filter(c -> c.inFlight > 0).count();
        if (unanswered > 0) {
            countErrors(unanswered);
            LOG.warn(
                    "{}: {} of {} connections still had requests unanswered {} s after the run"
                            + " ended",
                    getName(),
                    unanswered,
                    open.size(),
                    TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS));
        }
    }
}
