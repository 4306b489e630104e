package dbf0.kv.server;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.protocol.V2Codec;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A connection's session on the event loop (and, for v2 and RESP, on the blocking models): its
 * first byte says which protocol it speaks, and the rest of the connection is handed to that
 * protocol's session. ({@link BlockingKeyValueServer} reads the first byte itself and serves v1
 * without a session.)
 *
 * <pre>
 *   first byte             protocol
 *   's' 0x73, 'g' 0x67     v1, the seed protocol ({@link V1Session})
 *   0xDB                   v2, persistent and pipelined ({@link V2Session}); 0xDB is not ASCII
 *   '*', 'A'..'Z'          RESP, Redis's protocol ({@link RespSession}): an array, or an
 *                          inline command
 *   anything else          an error: logged once, connection closed
 * </pre>
 *
 * Inline RESP commands (typed at a telnet prompt) must start with a capital letter: lower case 's'
 * and 'g' are v1's operation bytes, and every other lower-case byte stays an unknown v1 operation,
 * as the seed's test vectors say. Redis tools always send arrays ('*').
 *
 * <p>Recognising the protocol from bytes the client sends anyway costs no round trip, and v1 stays
 * byte for byte what it was.
 */
final class ProtocolSession implements ByteSession {

    private final ServerContext context;
    private ByteSession protocol;

    ProtocolSession(ServerContext context) {
        this.context = context;
    }

    @Override
    public Next onRead(ByteBuffer in, OutputBuffer out) throws IOException {
        if (protocol == null) {
            if (!in.hasRemaining()) {
                return Next.READ_MORE;
            }
            protocol = choose(in.get(in.position()));
        }
        return protocol.onRead(in, out);
    }

    private ByteSession choose(byte first) throws ProtocolException {
        return switch (first) {
            case V1Codec.SET, V1Codec.GET -> new V1Session(context.store, context.asyncReads);
            case V2Codec.MAGIC ->
                    new V2Session(
                            context.store,
                            context.limits,
                            context.asyncReads,
                            context.cluster() == null
                                    ? null
                                    : new V2ClusterRouting(context.cluster()));
            default -> {
                if (first == '*' || (first >= 'A' && first <= 'Z')) {
                    yield new RespSession(context);
                }
                throw new ProtocolException(
                        String.format(
                                "first byte 0x%02x is no known protocol (v1 starts with 's' or 'g',"
                                    + " v2 with 0xdb, Redis's RESP with '*' or a capital letter)",
                                first & 0xff));
            }
        };
    }

    @Override
    public java.util.concurrent.CompletableFuture<?> awaiting() {
        return protocol.awaiting();
    }

    @Override
    public int bytesNeeded() {
        return protocol == null ? 0 : protocol.bytesNeeded();
    }

    @Override
    public void onEndOfStream(int unconsumed) throws IOException {
        if (protocol == null) {
            throw new EOFException("connected but sent no request");
        }
        protocol.onEndOfStream(unconsumed);
    }
}
