package dbf0.kv.server;

import dbf0.base.server.ByteSession;
import dbf0.base.server.OutputBuffer;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.storage.Store;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Protocol v2 on the server: a persistent connection of length-prefixed frames, every request
 * answered in order. All the complete frames in one read are answered together, so a pipelining
 * client's requests cost one read and one write system call for many operations.
 *
 * <p>Errors: a malformed frame whose length was sane gets an ERROR reply and the connection goes
 * on (the next frame starts right after it); a frame longer than the limit or a bad preamble gets
 * an ERROR reply and the connection is closed, because its framing can no longer be trusted.
 */
final class V2Session implements ByteSession {

  private static final Response OK = new Response.Ok();
  private static final Response NOT_FOUND = new Response.NotFound();
  /** A batch reply's type byte and element count. */
  private static final long BATCH_HEADER = 1 + 4;

  private final Store store;
  private final ProtocolLimits limits;
  private boolean preambleSeen;
  private int needed;

  V2Session(Store store, ProtocolLimits limits) {
    this.store = store;
    this.limits = limits;
  }

  @Override
  public Next onRead(ByteBuffer in, OutputBuffer out) throws ProtocolException {
    try {
      if (!preambleSeen) {
        if (!V2Codec.decodePreamble(in)) {
          return Next.READ_MORE;
        }
        preambleSeen = true;
      }
      while (true) {
        if (out.aboveHighWater() || pending.size() >= MAX_PENDING_WRITES) {
          settle(out);
          if (out.aboveHighWater()) {
            return Next.FLUSH_FIRST; // the rest waits in the input buffer until the replies drain
          }
        }
        DecodeResult<Request> result = V2Codec.decodeRequest(in, limits);
        switch (result) {
          case DecodeResult.Incomplete<Request> incomplete -> {
            settle(out);
            needed = incomplete.neededBytes();
            return Next.READ_MORE;
          }
          case DecodeResult.Frame<Request> frame -> {
            switch (frame.value()) {
              case Request.Set set -> pending.add(new PendingWrite(store.putAsync(set.key(), set.value()), false));
              case Request.Delete delete -> pending.add(new PendingWrite(store.deleteAsync(delete.key()), true));
              default -> {
                settle(out); // a GET sees this connection's earlier writes
                reply(out, apply(frame.value()));
              }
            }
          }
          case DecodeResult.Invalid<Request> invalid -> {
            settle(out);
            reply(out, new Response.Error(invalid.message()));
          }
        }
      }
    } catch (ProtocolException fatal) {
      settle(out);
      reply(out, new Response.Error(fatal.getMessage()));
      throw fatal;
    }
  }

  /**
   * A SET or DELETE submitted to the store and not yet answered. Consecutive writes in one read
   * (a pipelining client's) are all submitted before the session waits for any, so a store with
   * a write-ahead log commits them with one fsync instead of one each; the replies still go out
   * in request order, and anything else (a GET, a PING, a batch, an error) first waits for the
   * writes before it. At most {@value #MAX_PENDING_WRITES} wait at once.
   */
  private record PendingWrite(java.util.concurrent.CompletableFuture<Boolean> done, boolean isDelete) {}

  static final int MAX_PENDING_WRITES = 1024;

  private final List<PendingWrite> pending = new ArrayList<>();

  /** Waits for the pending writes, in order, and appends their replies. */
  private void settle(OutputBuffer out) {
    for (PendingWrite write : pending) {
      Response response;
      try {
        boolean found = write.done().join();
        response = write.isDelete() && !found ? NOT_FOUND : OK;
      } catch (java.util.concurrent.CompletionException e) {
        response = new Response.Error("not stored: " + e.getCause().getMessage());
      }
      reply(out, response);
    }
    pending.clear();
  }

  /**
   * Runs one request; a write the store could not make durable (a disk failure under a
   * write-ahead log) is answered ERROR, and the connection goes on: reads still work.
   */
  private Response apply(Request request) {
    try {
      return run(request);
    } catch (dbf0.kv.storage.StorageFailureException e) {
      return new Response.Error("not stored: " + e.getMessage());
    }
  }

  private Response run(Request request) {
    return switch (request) {
      case Request.Get get -> {
        ByteArrayWrapper value = store.get(get.key());
        yield value == null ? NOT_FOUND : new Response.Value(value);
      }
      case Request.Set set -> {
        store.put(set.key(), set.value());
        yield OK;
      }
      case Request.Delete delete -> store.delete(delete.key()) ? OK : NOT_FOUND;
      case Request.Ping ping -> OK;
      case Request.Batch batch -> applyBatch(batch);
    };
  }

  /**
   * A batch's reply must fit in one frame. Its size is worked out first, from the sizes of the
   * values its GETs would read now, and a batch whose reply would not fit gets an ERROR reply
   * with nothing applied. GETs see the batch's own earlier SETs and DELETEs, so the dry run
   * tracks those in a small overlay instead of touching the store. The dry run is skipped when
   * the store's bound on value lengths ({@link Store#largestValueBytes()}) already shows that the
   * reply fits ({@link #mayOutgrow}).
   *
   * <p>Race, honestly: another connection can grow a value between the check and the apply. The
   * apply then keeps a budget too, and a GET whose value no longer fits is answered with an
   * ERROR element in place of the value; the batch's writes are applied either way.
   */
  private Response applyBatch(Request.Batch batch) {
    long budget = limits.maxFrameBytes() - BATCH_HEADER;
    if (!mayOutgrow(batch, budget)) {
      return applyChecked(batch, budget);
    }
    Map<ByteArrayWrapper, ByteArrayWrapper> overlay = new HashMap<>();
    long size = 0;
    for (Request op : batch.ops()) {
      size += switch (op) {
        case Request.Get get -> {
          ByteArrayWrapper value = overlay.containsKey(get.key()) ? overlay.get(get.key()) : store.get(get.key());
          yield elementSize(value == null ? NOT_FOUND : new Response.Value(value));
        }
        case Request.Set set -> {
          overlay.put(set.key(), set.value());
          yield elementSize(OK);
        }
        case Request.Delete delete -> {
          overlay.put(delete.key(), null);
          yield elementSize(OK);
        }
        default -> elementSize(apply(op)); // PING: no effect, fixed size
      };
      if (size > budget) {
        return new Response.Error("batch reply would exceed the " + limits.maxFrameBytes()
            + "-byte frame limit; nothing applied (ask for fewer or smaller values per batch)");
      }
    }
    return applyChecked(batch, budget);
  }

  /**
   * Whether the reply could pass the budget at all, judged without a lookup: every element is at
   * most a VALUE of the longest value the store or the batch holds. With 1,000 GETs of 64-byte
   * values that is 69 KB against 16 MiB, and the dry run, which reads every GET's value twice
   * (once to size it, once to answer), is skipped. A value that grows past the bound meanwhile
   * is the race the apply pass already guards against.
   */
  private boolean mayOutgrow(Request.Batch batch, long budget) {
    long largest = store.largestValueBytes();
    for (Request op : batch.ops()) {
      if (op instanceof Request.Set set) {
        largest = Math.max(largest, set.value().length());
      }
    }
    long perElement = 1 + 4 + largest; // VALUE: type byte, length, bytes
    return largest > budget || perElement > budget / Math.max(1, batch.ops().size());
  }

  /** Applies the batch in order; a reply that would pass what is left of the budget becomes an ERROR element. */
  private Response applyChecked(Request.Batch batch, long budget) {
    List<Response> replies = new ArrayList<>(batch.ops().size());
    for (Request op : batch.ops()) {
      Response reply = apply(op);
      long bytes = elementSize(reply);
      if (bytes > budget) {
        reply = new Response.Error("value grew past the batch's reply limit while the batch ran");
        bytes = elementSize(reply);
      }
      budget -= bytes;
      replies.add(reply);
    }
    return new Response.Batch(replies);
  }

  /** Bytes a reply takes as an element of a batch reply: its frame without the frame header. */
  private static long elementSize(Response reply) {
    return V2Codec.encodedSize(reply) - V2Codec.HEADER_BYTES;
  }

  private void reply(OutputBuffer out, Response response) {
    try {
      V2Codec.encode(response, out.reserve(V2Codec.encodedSize(response)), limits);
    } catch (IllegalArgumentException overLimit) {
      // Only reachable through the race applyBatch describes; the client still gets an answer
      // in order, and the connection stays in step.
      Response error = new Response.Error("reply over the frame limit: " + overLimit.getMessage());
      V2Codec.encode(error, out.reserve(V2Codec.encodedSize(error)), limits);
    }
  }

  @Override
  public int bytesNeeded() {
    return needed;
  }

  @Override
  public void onEndOfStream(int unconsumed) throws EOFException {
    if (unconsumed > 0) {
      throw new EOFException("stream ended inside a v2 frame, " + unconsumed + " bytes into it");
    }
  }
}
