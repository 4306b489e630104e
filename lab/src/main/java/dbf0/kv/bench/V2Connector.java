package dbf0.kv.bench;

import dbf0.base.client.BaseConnector;
import dbf0.base.io.OutputBuffer;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A connector over one persistent protocol v2 connection, for the whole run. It keeps up to {@code
 * window} frames in flight, each holding {@code batchSize} operations:
 *
 * <ul>
 *   <li>persistent: window 1, batch 1: one request, wait, next;
 *   <li>pipelined: window N, batch 1: refill the window after every read, all new requests in one
 *       write;
 *   <li>batched: batch N: many operations per frame, one reply frame for all of them.
 * </ul>
 *
 * With {@code orderPreserving}, a SET is a barrier: the GETs before it are sent and answered first,
 * and nothing after it is sent until it is acknowledged, so the server sees this thread's
 * operations in the generator's order even across frames.
 *
 * <p>Operations are counted by what each frame asked ({@link FrameSource#account}).
 */
final class V2Connector extends BaseConnector {

    private final FrameSource frames;
    private final int window;
    private final int batchSize;
    private final boolean orderPreserving;
    private final ProtocolLimits limits = ProtocolLimits.DEFAULTS;

    // In-flight frames, oldest first: when each was sent, and a ring buffer over `window` slots.
    private final long[] sentAt;
    private final byte[][] kindsAt;
    private int oldest;
    private int inFlight;
    private boolean barrier;
    private FrameHistory history; // null unless --history

    // One buffer each way for the whole run, grown to the largest frame (at most the frame limit;
    // the receiving one is the ReplyReader's), and the kinds of each slot's frame: sending and
    // counting a frame make no garbage.
    private final OutputBuffer sendBuffer = new OutputBuffer(64 * 1024);
    private final ReplyTypes replies = new ReplyTypes();
    private final FrameSource.Sent[] sentKinds;

    V2Connector(
            String name,
            InetSocketAddress address,
            FrameSource frames,
            V2Load load,
            boolean orderPreserving) {
        super(address, name);
        this.frames = frames;
        this.window = load.window();
        this.batchSize = load.batchSize();
        this.orderPreserving = orderPreserving;
        this.sentAt = new long[window];
        this.kindsAt = new byte[window][];
        this.sentKinds = new FrameSource.Sent[window];
        for (int i = 0; i < window; i++) {
            sentKinds[i] = new FrameSource.Sent();
        }
    }

    /** Records this connection's operations into {@code log}, as client {@code client}. */
    void recordHistory(HistoryRecorder.Log log, int client) {
        history = new FrameHistory(log, client, window);
    }

    @Override
    public void run() {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            socket.connect(getServerAddress(), 10_000);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            ReplyReader in = new ReplyReader(socket.getInputStream(), limits);
            V2Codec.writePreamble(out);
            while (!isStopped()) {
                while (inFlight < window && !barrier && !isStopped()) {
                    if (history == null) {
                        sendInPlace(out);
                    } else {
                        send(out, nextFrame()); // the history records the requests themselves
                    }
                }
                out.flush();
                // One reply at least, then every reply already buffered, before refilling the
                // window.
                do {
                    receive(in);
                } while (inFlight > 0 && (in.buffered() > 0 || barrier));
            }
            while (inFlight > 0) {
                receive(in); // let the last replies arrive, so the server is not reset mid-write
            }
        } catch (IOException | RuntimeException e) {
            if (!isStopped()) {
                countError(e); // the connection is gone: this connector ends
            }
        } finally {
            if (history != null) {
                for (int i = 0; i < inFlight; i++) {
                    history.unanswered(
                            (oldest + i) % window); // sent, never answered: outcome unknown
                }
            }
        }
    }

    private FrameSource.Frame nextFrame() {
        FrameSource.Frame frame = frames.next(batchSize, orderPreserving);
        // the SET and the GETs before it go now; nothing more until all are answered
        barrier = orderPreserving && frame.writes();
        return frame;
    }

    /** The next frame, encoded by the source straight into one reused buffer. */
    private void sendInPlace(OutputStream out) throws IOException {
        int slot = (oldest + inFlight) % window;
        FrameSource.Sent sent = sentKinds[slot];
        frames.encodeNext(sendBuffer, batchSize, orderPreserving, sent, limits);
        // the SET and the GETs before it go now; nothing more until all are answered
        barrier = orderPreserving && sent.writes;
        sendBuffer.writeTo(out);
        sentAt[slot] = System.nanoTime();
        inFlight++;
    }

    private void send(OutputStream out, FrameSource.Frame frame) throws IOException {
        int slot = (oldest + inFlight) % window;
        if (history != null) {
            history.sending(slot, frame.request()); // invoke time before encoding
        }
        V2Codec.writeRequest(out, frame.request(), limits);
        kindsAt[slot] = frame.kinds();
        sentAt[slot] = System.nanoTime();
        inFlight++;
    }

    private void receive(ReplyReader in) throws IOException {
        if (history != null) { // the history records the replies themselves
            receiveDecoded(in.stream());
            return;
        }
        boolean wellFormed = replies.read(in.readFrame());
        long now = System.nanoTime();
        long start = sentAt[oldest];
        FrameSource.Sent sent = sentKinds[oldest];
        answered();
        countErrors(
                FrameSource.account(
                        replies,
                        wellFormed,
                        sent.kinds,
                        sent.count,
                        start,
                        now,
                        getStats(),
                        getLatencies()));
    }

    /** Moves the window past the oldest frame, which has been answered. */
    private void answered() {
        oldest = (oldest + 1) % window;
        inFlight--;
        if (inFlight == 0) {
            barrier = false;
        }
    }

    private void receiveDecoded(InputStream in) throws IOException {
        DecodeResult.Complete<Response> result = V2Codec.readResponse(in, limits);
        long now = System.nanoTime();
        long start = sentAt[oldest];
        byte[] kinds = kindsAt[oldest];
        if (history != null) {
            history.answered(oldest, result, now);
        }
        answered();
        countErrors(FrameSource.account(result, kinds, start, now, getStats(), getLatencies()));
    }
}
