package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.RateLimitedLog;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.workload.KeyValueSource;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.slf4j.LoggerFactory;

/**
 * A load-generating thread over one persistent protocol v2 connection. It keeps up to
 * {@code window} frames in flight, each holding {@code batchSize} operations:
 * <ul>
 *   <li>persistent: window 1, batch 1: one request, wait, next;
 *   <li>pipelined: window N, batch 1: refill the window after every read, all new requests in
 *       one write;
 *   <li>batched: batch N: many operations per frame, one reply frame for all of them.
 * </ul>
 * With {@code orderPreserving}, a SET is a barrier: the GETs before it are sent and answered
 * first, and nothing after it is sent until it is acknowledged, so the server sees this thread's
 * operations in the generator's order even across frames.
 *
 * <p>Operations are counted by their replies: VALUE or NOT_FOUND is a GET, OK is a SET.
 */
final class V2LoadWorker extends ThreadedLoadWorker {

  private static final RateLimitedLog ERROR_LOG = new RateLimitedLog(LoggerFactory.getLogger(V2LoadWorker.class), 5);

  private final InetSocketAddress address;
  private final double setFraction;
  private final KeyValueSource source;
  private final Random random;
  private final int window;
  private final int batchSize;
  private final boolean orderPreserving;
  private final ProtocolLimits limits = ProtocolLimits.DEFAULTS;

  // In-flight frames, oldest first: when each was sent, and a ring buffer over `window` slots.
  private final long[] sentAt;
  private int oldest;
  private int inFlight;
  private boolean barrier;
  private FrameHistory history; // null unless --history

  V2LoadWorker(String name, InetSocketAddress address, KeyValueSource source, Random random, V2Load load,
      boolean orderPreserving) {
    super(name);
    this.address = address;
    this.setFraction = load.setFraction();
    this.source = source;
    this.random = random;
    this.window = load.window();
    this.batchSize = load.batchSize();
    this.orderPreserving = orderPreserving;
    this.sentAt = new long[window];
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
      socket.connect(address, 10_000);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
      InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      V2Codec.writePreamble(out);
      while (!stopped) {
        while (inFlight < window && !barrier && !stopped) {
          send(out, nextFrame());
        }
        out.flush();
        // One reply at least, then every reply already buffered, before refilling the window.
        do {
          receive(in);
        } while (inFlight > 0 && (in.available() > 0 || barrier));
      }
      while (inFlight > 0) {
        receive(in); // let the last replies arrive, so the server is not reset mid-write
      }
    } catch (IOException | RuntimeException e) {
      if (!stopped) {
        errors++;
        ERROR_LOG.warn("{}: {}", name, e.toString());
      }
    } finally {
      if (history != null) {
        for (int i = 0; i < inFlight; i++) {
          history.unanswered((oldest + i) % window); // sent, never answered: outcome unknown
        }
      }
    }
  }

  private Request nextFrame() {
    if (batchSize == 1) {
      Request op = nextOp();
      barrier = orderPreserving && op instanceof Request.Set;
      return op;
    }
    List<Request> ops = new ArrayList<>(batchSize);
    while (ops.size() < batchSize) {
      Request op = nextOp();
      ops.add(op);
      if (orderPreserving && op instanceof Request.Set) {
        barrier = true; // the GETs so far and this SET go now; nothing more until all are answered
        break;
      }
    }
    return new Request.Batch(ops);
  }

  private Request nextOp() {
    return randomOp(source, random, setFraction);
  }

  /** One operation of the workload: a SET with probability {@code setFraction}, else a GET. */
  static Request randomOp(KeyValueSource source, Random random, double setFraction) {
    ByteArrayWrapper key = source.nextKey().copy(); // the source reuses its buffer
    if (random.nextDouble() < setFraction) {
      return new Request.Set(key, source.valueFor(key).copy());
    }
    return new Request.Get(key);
  }

  private void send(OutputStream out, Request frame) throws IOException {
    if (history != null) {
      history.sending((oldest + inFlight) % window, frame);
    }
    V2Codec.writeRequest(out, frame, limits);
    sentAt[(oldest + inFlight) % window] = System.nanoTime();
    inFlight++;
  }

  private void receive(InputStream in) throws IOException {
    DecodeResult.Complete<Response> result = V2Codec.readResponse(in, limits);
    long now = System.nanoTime();
    long start = sentAt[oldest];
    if (history != null) {
      history.answered(oldest, result, now);
    }
    oldest = (oldest + 1) % window;
    inFlight--;
    if (inFlight == 0) {
      barrier = false;
    }
    errors += account(result, start, now, stats, latencies);
  }

  /**
   * Counts one reply frame that answers a frame sent at {@code start}: its operations in
   * {@code stats} and its latency, once per operation, in {@code latencies}, if the frame was
   * sent inside the measured interval.
   *
   * @return how many errors the frame held (an invalid frame or ERROR replies)
   */
  static long account(DecodeResult.Complete<Response> result, long start, long now, KeyValueClientStats stats,
      LatencyRecorder latencies) {
    if (!(result instanceof DecodeResult.Frame<Response> frame)) {
      return 1;
    }
    if (!latencies.counts(start)) {
      return 0;
    }
    Response response = frame.value();
    if (response instanceof Response.Batch batch) {
      latencies.record(start, now, batch.replies().size());
      long errors = 0;
      for (Response r : batch.replies()) {
        errors += count(r, stats);
      }
      return errors;
    }
    latencies.record(start, now);
    return count(response, stats);
  }

  private static long count(Response response, KeyValueClientStats stats) {
    switch (response) {
      case Response.Value v -> stats.countGet(true, false);
      case Response.NotFound n -> stats.countGet(false, false);
      case Response.Ok ok -> stats.countSet();
      case Response.Error e -> {
        return 1;
      }
      case Response.Batch b -> {
        return 1;
      }
    }
    return 0;
  }
}
