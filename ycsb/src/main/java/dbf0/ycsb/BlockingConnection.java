package dbf0.ycsb;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * One v2 connection for one thread: each operation writes its request and reads its reply on the
 * calling thread, with no other thread involved, as dbf0 bench's persistent mode does. YCSB calls a
 * DB instance from its own thread only, so nothing here is shared.
 *
 * <p>After an I/O failure the connection is closed (a request may be half written or its reply half
 * read) and the next operation opens a new one.
 */
final class BlockingConnection implements Connection {

    private static final int TIMEOUT_MS = 10_000;
    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    private final InetSocketAddress address;
    private Socket socket; // null when closed
    private OutputStream out;
    private InputStream in;

    BlockingConnection(InetSocketAddress address) throws IOException {
        this.address = address;
        open();
    }

    private void open() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(TIMEOUT_MS);
            s.connect(address, TIMEOUT_MS);
            out = new BufferedOutputStream(s.getOutputStream(), 64 * 1024);
            in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
            V2Codec.writePreamble(out);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
    }

    private Response call(Request request) throws IOException {
        if (socket == null) {
            open();
        }
        DecodeResult.Complete<Response> reply;
        try {
            V2Codec.writeRequest(out, request, LIMITS);
            out.flush();
            reply = V2Codec.readResponse(in, LIMITS);
        } catch (IOException e) {
            close();
            throw e;
        }
        return switch (reply) {
            case DecodeResult.Frame<Response> frame -> frame.value();
            // well framed, so the connection is still in step: only this request failed
            case DecodeResult.Invalid<Response> invalid ->
                    throw new IOException("malformed reply: " + invalid.message());
        };
    }

    private static IOException unexpected(String request, Response reply) {
        return new IOException("the server answered " + reply + " to a " + request);
    }

    @Override
    public ByteArrayWrapper get(ByteArrayWrapper key) throws IOException {
        return switch (call(new Request.Get(key))) {
            case Response.Value value -> value.value();
            case Response.NotFound notFound -> null;
            case Response reply -> throw unexpected("GET", reply);
        };
    }

    @Override
    public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
        Response reply = call(new Request.Set(key, value));
        if (!(reply instanceof Response.Ok)) {
            throw unexpected("SET", reply);
        }
    }

    @Override
    public boolean delete(ByteArrayWrapper key) throws IOException {
        return switch (call(new Request.Delete(key))) {
            case Response.Ok ok -> true;
            case Response.NotFound notFound -> false;
            case Response reply -> throw unexpected("DELETE", reply);
        };
    }

    @Override
    public Response.Range range(Request.Range range) throws IOException {
        return switch (call(range)) {
            case Response.Range page -> page;
            case Response.Error error -> throw new IOException(error.message());
            case Response reply -> throw unexpected("RANGE", reply);
        };
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
