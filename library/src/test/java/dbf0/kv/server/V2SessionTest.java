package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** v2 through the protocol dispatcher: a pipelined session split at every byte boundary. */
class V2SessionTest {

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    static byte[] session(Request... requests) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(V2Codec.preamble());
        for (Request r : requests) {
            bytes.write(V2Codec.encode(r, LIMITS));
        }
        return bytes.toByteArray();
    }

    static List<Response> replies(byte[] output) throws Exception {
        List<Response> replies = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(output);
        while (in.hasRemaining()) {
            if (V2Codec.decodeResponse(in, LIMITS) instanceof DecodeResult.Frame<Response> f) {
                replies.add(f.value());
            } else {
                throw new AssertionError("bad reply bytes");
            }
        }
        return replies;
    }

    static ByteArrayWrapper b(int... bytes) {
        return ByteArrayWrapper.of(bytes);
    }

    @Test
    void pipelinedSessionSplitAtEveryBoundaryGivesTheSameReplies() throws Exception {
        byte[] bytes =
                session(
                        new Request.Set(b(1), b(10)),
                        new Request.Get(b(1)),
                        new Request.Get(b(2)),
                        new Request.Batch(
                                List.of(
                                        new Request.Set(b(2), b(20)),
                                        new Request.Get(b(2)),
                                        new Request.Delete(b(1)))),
                        new Request.Delete(b(1)),
                        new Request.Ping());
        List<Response> expected =
                List.of(
                        new Response.Ok(),
                        new Response.Value(b(10)),
                        new Response.NotFound(),
                        new Response.Batch(
                                List.of(
                                        new Response.Ok(),
                                        new Response.Value(b(20)),
                                        new Response.Ok())),
                        new Response.NotFound(),
                        new Response.Ok());
        for (int split = 0; split <= bytes.length; split++) {
            var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
            SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(map));
            assertThat(replies(feeder.feedSplit(bytes, split)))
                    .as("split at %d", split)
                    .isEqualTo(expected);
            assertThat(feeder.last).isEqualTo(ByteSession.Next.READ_MORE);
            assertThat(map).containsOnlyKeys(b(2));
        }
    }

    @Test
    void byteByByteDelivery() throws Exception {
        byte[] bytes =
                session(
                        new Request.Set(b(5), new ByteArrayWrapper(new byte[5000])),
                        new Request.Get(b(5)));
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(map));
        for (int i = 0; i < bytes.length; i++) {
            feeder.feed(bytes, i, i + 1);
        }
        assertThat(replies(feeder.output.toByteArray()))
                .containsExactly(
                        new Response.Ok(),
                        new Response.Value(new ByteArrayWrapper(new byte[5000])));
    }

    @Test
    void malformedFrameGetsAnErrorReplyAndTheSessionGoesOn() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(V2Codec.preamble());
        bytes.write(new byte[] {0, 0, 0, 1, 'X'}); // a well-framed body with an unknown type
        bytes.write(V2Codec.encode(new Request.Ping(), LIMITS));
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        byte[] all = bytes.toByteArray();
        feeder.feed(all, 0, all.length);
        List<Response> replies = replies(feeder.output.toByteArray());
        assertThat(replies).hasSize(2);
        assertThat(replies.get(0)).isInstanceOf(Response.Error.class);
        assertThat(replies.get(1)).isEqualTo(new Response.Ok());
    }

    @Test
    void oversizedFrameIsFatalAfterAnErrorReply() throws Exception {
        byte[] bytes = {(byte) 0xDB, 2, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        assertThatThrownBy(() -> feeder.feed(bytes, 0, bytes.length))
                .isInstanceOf(ProtocolException.class);
        assertThat(replies(feeder.output.toByteArray()).get(0)).isInstanceOf(Response.Error.class);
        assertThat(feeder.session.bytesNeeded())
                .isLessThan(1 << 20); // no giant buffer was asked for
    }

    @Test
    void wrongVersionIsFatalAfterAnErrorReply() throws Exception {
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        assertThatThrownBy(() -> feeder.feed(new byte[] {(byte) 0xDB, 9}, 0, 2))
                .isInstanceOf(ProtocolException.class);
        assertThat(replies(feeder.output.toByteArray()).get(0)).isInstanceOf(Response.Error.class);
    }

    @Test
    void endOfStreamInsideAFrameIsAnError() throws Exception {
        byte[] bytes = session(new Request.Get(b(1)));
        SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(new ConcurrentHashMap<>()));
        feeder.feed(bytes, 0, bytes.length - 1);
        assertThatThrownBy(() -> feeder.session.onEndOfStream(feeder.input.pending()))
                .isInstanceOf(java.io.EOFException.class);
    }
}
