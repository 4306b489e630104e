package dbf0.kv.server;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.common.FlushingThread;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.protocol.V1Codec.V1Request;
import dbf0.kv.storage.Store;
import java.io.EOFException;
import java.nio.ByteBuffer;

/**
 * Protocol v1 as a session, for the event loop (chapter 2): the same requests and bytes as {@link
 * BlockingKeyValueServer}'s processSet and processGet, but fed whatever bytes have arrived, and
 * never blocking: a SET's write is submitted and the loop is told to wait ({@link Next#AWAIT})
 * until the store has done it.
 */
final class V1Session implements ByteSession {

    private final Store store;
    private final boolean asyncReads;
    private boolean done;

    /** The GET's read, when it goes through {@link Store#getAsync} and must be waited for. */
    private java.util.concurrent.CompletableFuture<dbf0.common.ByteArrayWrapper> read;

    /** The SET's write, once submitted. */
    private java.util.concurrent.CompletableFuture<Boolean> write;

    V1Session(Store store) {
        this(store, false);
    }

    /**
     * @param asyncReads read through {@link Store#getAsync}, waiting ({@link Next#AWAIT}) for a
     *     read that needs the disk: an event loop over a store on disk
     */
    V1Session(Store store, boolean asyncReads) {
        this.store = store;
        this.asyncReads = asyncReads;
    }

    @Override
    public Next onRead(ByteBuffer in, OutputBuffer out) throws java.io.IOException {
        if (write != null) {
            return afterWrite();
        }
        if (read != null) {
            return afterRead(out);
        }
        V1Request request;
        switch (V1Codec.decodeRequest(in)) {
            case DecodeResult.Incomplete<V1Request> incomplete -> {
                return Next.READ_MORE;
            }
            case DecodeResult.Frame<V1Request> frame -> request = frame.value();
            // v1 has no recoverable errors; should the decoder ever answer one, it is fatal here.
            case DecodeResult.Invalid<V1Request> invalid ->
                    throw new ProtocolException(invalid.message());
        }
        done = true;
        if (request.op() == V1Codec.SET) {
            // Submitted, not waited for here: the server model waits (an event loop without
            // blocking).
            write = store.putAsync(request.key(), request.value());
            // before anyone waits for it: a log that holds writes back writes it now (an event loop
            // at the end of its turn, with the other connections' writes)
            FlushingThread.flushOrOwe(store::flush);
            return afterWrite();
        }
        if (asyncReads) {
            read = store.getAsync(request.key());
            return afterRead(out);
        }
        out.put(V1Codec.encodeGetResponse(store.get(request.key())));
        return Next.CLOSE_AFTER_WRITE;
    }

    private Next afterRead(OutputBuffer out) throws java.io.IOException {
        if (!read.isDone()) {
            return Next.AWAIT;
        }
        try {
            out.put(V1Codec.encodeGetResponse(read.join()));
        } catch (java.util.concurrent.CompletionException e) {
            // v1 has no error reply: close and log, as for a failed SET.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new java.io.IOException("v1 GET failed: " + cause.getMessage(), cause);
        }
        return Next.CLOSE_AFTER_WRITE;
    }

    private Next afterWrite() throws java.io.IOException {
        if (!write.isDone()) {
            return Next.AWAIT;
        }
        try {
            write.join();
        } catch (java.util.concurrent.CompletionException e) {
            // v1 SET has no reply, so there is nobody to tell: close and log, as for any failure.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new java.io.IOException("v1 SET not stored: " + cause.getMessage(), cause);
        }
        return Next.CLOSE_AFTER_WRITE;
    }

    @Override
    public java.util.concurrent.CompletableFuture<?> awaiting() {
        return (read != null ? read : write).handle((result, failure) -> null);
    }

    @Override
    public void onEndOfStream(int unconsumed) throws EOFException {
        if (!done) {
            throw new EOFException("stream ended after " + unconsumed + " bytes of a v1 request");
        }
    }
}
