package dbf0.kv.bench;

import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.util.List;

/**
 * {@code --history} for one v2 connection: remembers the frames in flight, in the same ring of
 * {@code window} slots the connector keeps its send times in, and records each operation when its
 * reply is matched (or as pending if none comes).
 *
 * <p>An operation's invoke time is taken before its frame is encoded, so it is never later than the
 * moment its bytes could reach the server; its completion time is when the reply frame that answers
 * it was decoded. In a batch every operation gets the frame's times: the client knows no better.
 */
final class FrameHistory {

    private final HistoryRecorder.Log log;
    private final int client;
    private final Request[] frames;

    /** Per slot: how many of the frame's operations, from the first, are recorded. */
    private final int[] admitted;

    private final long[] invoked;

    FrameHistory(HistoryRecorder.Log log, int client, int window) {
        this.log = log;
        this.client = client;
        this.frames = new Request[window];
        this.admitted = new int[window];
        this.invoked = new long[window];
    }

    /** Call just before {@code frame} is encoded into ring slot {@code slot}. */
    void sending(int slot, Request frame) {
        invoked[slot] = System.nanoTime();
        frames[slot] = frame;
        int n = 0;
        for (int i = 0, ops = opCount(frame); i < ops && log.admit(); i++) {
            n++;
        }
        admitted[slot] = n;
    }

    /** The reply for the frame in {@code slot} arrived (or could not be decoded) at {@code now}. */
    void answered(int slot, DecodeResult.Complete<Response> result, long now) {
        Request frame = frames[slot];
        frames[slot] = null;
        if (!(result instanceof DecodeResult.Frame<Response> reply)) {
            unanswered(frame, admitted[slot], invoked[slot]);
            return;
        }
        if (frame instanceof Request.Batch batch
                && reply.value() instanceof Response.Batch replies
                && replies.replies().size() == batch.ops().size()) {
            List<Request> ops = batch.ops();
            for (int i = 0; i < admitted[slot]; i++) {
                record(ops.get(i), replies.replies().get(i), invoked[slot], now);
            }
        } else if (!(frame instanceof Request.Batch) && admitted[slot] == 1) {
            record(frame, reply.value(), invoked[slot], now);
        } else {
            // a reply that does not fit its request says nothing
            unanswered(frame, admitted[slot], invoked[slot]);
        }
    }

    /** The frame in {@code slot} was sent but its reply never came: its operations are pending. */
    void unanswered(int slot) {
        unanswered(frames[slot], admitted[slot], invoked[slot]);
        frames[slot] = null;
    }

    private void unanswered(Request frame, int n, long invoke) {
        if (frame == null) {
            return;
        }
        List<Request> ops = frame instanceof Request.Batch b ? b.ops() : List.of(frame);
        for (int i = 0; i < n; i++) {
            pending(ops.get(i), invoke);
        }
    }

    private void record(Request op, Response reply, long invoke, long now) {
        switch (op) {
            case Request.Get get when reply instanceof Response.Value v ->
                    log.completed(
                            client,
                            HistoryRecorder.Op.GET,
                            get.key().getArray(),
                            v.value().getArray(),
                            true,
                            invoke,
                            now);
            case Request.Get get when reply instanceof Response.NotFound ->
                    log.completed(
                            client,
                            HistoryRecorder.Op.GET,
                            get.key().getArray(),
                            null,
                            false,
                            invoke,
                            now);
            case Request.Set set when reply instanceof Response.Ok ->
                    log.completed(
                            client,
                            HistoryRecorder.Op.SET,
                            set.key().getArray(),
                            set.value().getArray(),
                            null,
                            invoke,
                            now);
            // An ERROR reply (or one of the wrong kind) does not say whether the operation took
            // effect.
            default -> pending(op, invoke);
        }
    }

    private void pending(Request op, long invoke) {
        switch (op) {
            case Request.Get get ->
                    log.pending(
                            client,
                            HistoryRecorder.Op.GET,
                            get.key().getArray(),
                            null,
                            invoke,
                            null);
            case Request.Set set ->
                    log.pending(
                            client,
                            HistoryRecorder.Op.SET,
                            set.key().getArray(),
                            set.value().getArray(),
                            invoke,
                            null);
            case Request.Delete del ->
                    log.pending(
                            client,
                            HistoryRecorder.Op.DELETE,
                            del.key().getArray(),
                            null,
                            invoke,
                            null);
            case Request.Ping p -> {}
            case Request.Batch b -> {}
            case Request.Range r -> {} // bench sends none; a read changes nothing to record
            case Request.Topology t -> {}
        }
    }

    private static int opCount(Request frame) {
        return frame instanceof Request.Batch b ? b.ops().size() : 1;
    }
}
