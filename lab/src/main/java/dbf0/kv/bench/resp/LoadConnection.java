package dbf0.kv.bench.resp;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * One connection's load: send a batch, read all its replies, repeat until the end of the run. A
 * batch that starts after the warm-up is counted: each operation's latency runs from the batch's
 * send to the operation's last reply (its WAIT's, when it has one), as redis-benchmark times a
 * pipelined request. Run on a thread of its own; the results are read after it has finished.
 */
final class LoadConnection implements Runnable {

    /** Latencies up to a minute are kept to three significant digits, in microseconds. */
    private static final long MAX_MICROS = 60_000_000L;

    private final InetSocketAddress address;
    private final LoadRequests requests;
    private final int pipeline;
    private final int waitReplicas;
    private final long measureFromNanos;
    private final long endNanos;
    private final int timeoutMillis;

    final Histogram latencyMicros = new Histogram(MAX_MICROS, 3);
    long operations;
    long errors;
    long waitShort; // WAIT replies that counted fewer replicas than asked for
    String firstError; // an error reply's text, or null
    IOException failure; // why the connection stopped early, or null
    long finishedNanos;

    LoadConnection(
            InetSocketAddress address,
            LoadRequests requests,
            int pipeline,
            int waitReplicas,
            long measureFromNanos,
            long endNanos,
            int timeoutMillis) {
        this.address = address;
        this.requests = requests;
        this.pipeline = pipeline;
        this.waitReplicas = waitReplicas;
        this.measureFromNanos = measureFromNanos;
        this.endNanos = endNanos;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void run() {
        try (Socket socket = new Socket()) {
            socket.connect(address, timeoutMillis);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            RespReplies replies =
                    new RespReplies(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            load(out, replies);
        } catch (IOException e) {
            failure = e;
        } finally {
            finishedNanos = System.nanoTime();
        }
    }

    private void load(OutputStream out, RespReplies replies) throws IOException {
        int perOperation = requests.repliesPerOperation();
        long started;
        while ((started = System.nanoTime()) < endNanos) {
            ByteBuffer batch = requests.next();
            out.write(batch.array(), 0, batch.limit());
            out.flush();
            boolean counted = started >= measureFromNanos;
            for (int op = 0; op < pipeline; op++) {
                for (int r = 0; r < perOperation; r++) {
                    RespReplies.Reply reply = replies.next();
                    if (counted) {
                        tally(reply);
                    }
                }
                if (counted) {
                    long micros = (System.nanoTime() - started) / 1_000;
                    latencyMicros.recordValue(Math.min(micros, MAX_MICROS));
                    operations++;
                }
            }
        }
    }

    private void tally(RespReplies.Reply reply) {
        if (reply.isError()) {
            errors++;
            if (firstError == null) {
                firstError = reply.text();
            }
        } else if (reply.type() == ':' && reply.integer() < waitReplicas) {
            waitShort++;
        }
    }
}
