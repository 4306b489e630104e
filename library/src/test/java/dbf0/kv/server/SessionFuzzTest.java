package dbf0.kv.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.FuzzBytes;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.protocol.V2CodecFuzzTest;
import dbf0.kv.storage.MapStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fuzzes the sessions over all three protocols, through {@link ByteSession} only (bytes in, replies
 * out), as the server drives them: a whole connection's bytes delivered in one read and in random
 * chunks (1-byte reads included) must give byte-identical replies and the same ending. Only
 * IOException subclasses may escape.
 *
 * <p>The driver here is deliberately independent of the server's own buffers, and tolerant of flow
 * control: any {@link ByteSession.Next} other than CLOSE_AFTER_WRITE means "go on", and a session
 * that returns with whole requests unconsumed is called again once its output is drained.
 */
class SessionFuzzTest {

    /** Every batch reply fits in a frame under these limits (16 replies of 5 + 128 bytes). */
    static final ProtocolLimits LIMITS = new ProtocolLimits(32, 128, 4096, 16);

    // ---------------------------------------------------------------------------------------------
    // Generators: whole connections in each protocol, valid, mutated, or random.

    /** Requests over three keys, so that GETs and DELETEs find what SETs stored. */
    static Arbitrary<Request> collidingRequests(ProtocolLimits limits) {
        Arbitrary<ByteArrayWrapper> keys =
                Arbitraries.of("", "a", "b").map(s -> new ByteArrayWrapper(s.getBytes(US_ASCII)));
        Arbitrary<ByteArrayWrapper> values =
                Arbitraries.bytes()
                        .array(byte[].class)
                        .ofMaxSize(limits.maxValueBytes())
                        .map(ByteArrayWrapper::new);
        Arbitrary<Request> ops =
                Arbitraries.oneOf(
                        keys.map(Request.Get::new),
                        Combinators.combine(keys, values).as(Request.Set::new),
                        keys.map(Request.Delete::new));
        return Arbitraries.oneOf(
                ops,
                ops,
                Arbitraries.just(new Request.Ping()),
                ops.list().ofMaxSize(limits.maxBatchOps()).map(Request.Batch::new));
    }

    static Arbitrary<byte[]> v2Connections(ProtocolLimits limits) {
        Arbitrary<byte[]> frames =
                Arbitraries.oneOf(V2CodecFuzzTest.requests(limits), collidingRequests(limits))
                        .map(r -> fits(r, limits) ? r : new Request.Ping())
                        .map(r -> V2Codec.encode(r, limits));
        return frames.list()
                .ofMaxSize(4)
                .map(
                        list -> {
                            List<byte[]> parts = new ArrayList<>(list);
                            parts.addFirst(V2Codec.preamble());
                            return FuzzBytes.concat(parts);
                        });
    }

    static boolean fits(Request request, ProtocolLimits limits) {
        try {
            V2Codec.encode(request, limits);
            return true;
        } catch (IllegalArgumentException tooBig) {
            return false;
        }
    }

    static Arbitrary<byte[]> v1Connections() {
        Arbitrary<ByteArrayWrapper> arrays =
                Arbitraries.of("", "a", "b").map(s -> new ByteArrayWrapper(s.getBytes(US_ASCII)));
        return Arbitraries.oneOf(
                arrays.map(V1Codec::encodeGet),
                Combinators.combine(arrays, arrays).as(V1Codec::encodeSet));
    }

    /** A small Redis vocabulary over three keys, so that GETs hit what SETs stored. */
    static Arbitrary<byte[]> respConnections() {
        Arbitrary<String> keys = Arbitraries.of("a", "b", "c");
        Arbitrary<String> values = Arbitraries.strings().alpha().numeric().ofMaxLength(12);
        Arbitrary<List<String>> command =
                Arbitraries.oneOf(
                        Combinators.combine(keys, values).as((k, v) -> List.of("SET", k, v)),
                        keys.map(k -> List.of("GET", k)),
                        keys.map(k -> List.of("DEL", k)),
                        keys.list().ofMinSize(1).ofMaxSize(3).map(ks -> prepend("EXISTS", ks)),
                        keys.list().ofMinSize(1).ofMaxSize(3).map(ks -> prepend("MGET", ks)),
                        Combinators.combine(keys, values).as((k, v) -> List.of("MSET", k, v)),
                        values.map(v -> List.of("ECHO", v)),
                        Arbitraries.just(List.of("PING")),
                        Arbitraries.just(List.of("DBSIZE")),
                        Arbitraries.just(List.of("NOSUCHCOMMAND", "x")),
                        Arbitraries.just(List.of("QUIT")));
        Arbitrary<byte[]> encoded =
                Combinators.combine(command, Arbitraries.of(true, true, false))
                        .as(
                                (words, asArray) -> {
                                    if (!asArray) {
                                        return (String.join(" ", words) + "\r\n")
                                                .getBytes(US_ASCII);
                                    }
                                    StringBuilder text =
                                            new StringBuilder("*" + words.size() + "\r\n");
                                    for (String word : words) {
                                        text.append('$')
                                                .append(word.length())
                                                .append("\r\n")
                                                .append(word)
                                                .append("\r\n");
                                    }
                                    return text.toString().getBytes(US_ASCII);
                                });
        return encoded.list().ofMinSize(1).ofMaxSize(5).map(FuzzBytes::concat);
    }

    private static List<String> prepend(String name, List<String> rest) {
        List<String> words = new ArrayList<>(rest);
        words.addFirst(name);
        return words;
    }

    static Arbitrary<byte[]> connections(ProtocolLimits limits) {
        Arbitrary<byte[]> valid =
                Arbitraries.oneOf(
                        v2Connections(limits),
                        v2Connections(limits),
                        v1Connections(),
                        respConnections(),
                        respConnections());
        int[] extremes = {
            0,
            -1,
            0x7fffffff,
            limits.maxFrameBytes(),
            limits.maxFrameBytes() + 1,
            limits.maxKeyBytes() + 1,
            limits.maxValueBytes() + 1,
            127,
            128,
            '\r',
            '\n',
            '*',
            '$'
        };
        Arbitrary<byte[]> mutated =
                Combinators.combine(
                                valid,
                                FuzzBytes.mutations(extremes).list().ofMinSize(1).ofMaxSize(3))
                        .as(FuzzBytes::apply);
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        return Arbitraries.oneOf(valid, mutated, mutated, random);
    }

    @Provide
    Arbitrary<byte[]> connections() {
        return connections(LIMITS);
    }

    @Provide
    Arbitrary<List<Integer>> chunkSizes() {
        return Arbitraries.oneOf(
                        Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 40))
                .list()
                .ofMinSize(1)
                .ofMaxSize(8);
    }

    // ---------------------------------------------------------------------------------------------
    // Invariants 1 and 4

    @Property
    void anySplitGivesTheSameRepliesAndEnding(
            @ForAll("connections") byte[] input, @ForAll("chunkSizes") List<Integer> sizes) {
        Outcome atOnce = run(input, new int[] {input.length}, LIMITS);
        Outcome split = run(input, FuzzBytes.chunks(input.length, sizes), LIMITS);
        Outcome byteByByte = run(input, FuzzBytes.chunks(input.length, List.of(1)), LIMITS);
        assertThat(split)
                .as("chunks " + sizes + " of " + HexFormat.of().formatHex(input))
                .isEqualTo(atOnce);
        assertThat(byteByByte)
                .as("1-byte reads of " + HexFormat.of().formatHex(input))
                .isEqualTo(atOnce);
    }

    /**
     * What a connection came to: the replies (hex, so records compare by content) and how it ended:
     * "close" (CLOSE_AFTER_WRITE), "open" (the peer closed and the session accepted it), or the
     * IOException class and message from onRead or onEndOfStream.
     */
    record Outcome(String replies, String ending) {}

    static Outcome run(byte[] input, int[] chunks, ProtocolLimits limits) {
        ByteSession session =
                new ProtocolSession(
                        new ServerContext(
                                new MapStore(new ConcurrentHashMap<>()),
                                ServerOptions.defaults().withLimits(limits)));
        ByteBuffer in = ByteBuffer.allocate(input.length); // write mode between calls
        OutputBuffer out = new OutputBuffer(16);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        int fed = 0;
        try {
            for (int chunk : chunks) {
                in.put(input, fed, chunk);
                fed += chunk;
                in.flip();
                try {
                    if (deliver(session, in, out, sent, limits)) {
                        return new Outcome(hex(sent), "close");
                    }
                } finally {
                    in.compact();
                }
            }
            in.flip();
            session.onEndOfStream(in.remaining());
            return new Outcome(hex(sent), "open");
        } catch (IOException e) {
            drain(out, sent);
            return new Outcome(hex(sent), e.getClass().getName() + ": " + e.getMessage());
        } catch (RuntimeException | Error e) {
            throw new AssertionError(
                    "undocumented "
                            + e
                            + " escaped a session for "
                            + HexFormat.of().formatHex(input),
                    e);
        }
    }

    /**
     * One read's worth: calls onRead until the session waits for bytes or closes; true on close.
     */
    private static boolean deliver(
            ByteSession session,
            ByteBuffer in,
            OutputBuffer out,
            ByteArrayOutputStream sent,
            ProtocolLimits limits)
            throws IOException {
        for (int calls = 0; calls < 10_000; calls++) {
            int before = in.position();
            ByteSession.Next next = session.onRead(in, out);
            drain(out, sent);
            if (next == ByteSession.Next.CLOSE_AFTER_WRITE) {
                return true;
            }
            assertThat(session.bytesNeeded())
                    .as("bytes needed")
                    .isLessThanOrEqualTo(neededBound(in.remaining(), limits));
            boolean progressed = in.position() != before;
            if (!in.hasRemaining() || (!progressed && next == ByteSession.Next.READ_MORE)) {
                return false; // waiting for the peer
            }
            // Either it consumed some and stopped (flow control), or it asked to be called again.
        }
        return fail("the session neither consumed its input nor asked for more bytes");
    }

    /**
     * What a session may ask its buffer to hold: one frame, or what is there plus one bulk string.
     */
    private static int neededBound(int unconsumed, ProtocolLimits limits) {
        int v2 = V2Codec.HEADER_BYTES + limits.maxFrameBytes();
        int resp = unconsumed + Math.max(limits.maxKeyBytes(), limits.maxValueBytes()) + 64;
        return Math.max(v2, resp);
    }

    private static void drain(OutputBuffer out, ByteArrayOutputStream sent) {
        try {
            out.writeTo(sent);
        } catch (IOException impossible) {
            throw new AssertionError(impossible);
        }
    }

    private static String hex(ByteArrayOutputStream sent) {
        return HexFormat.of().formatHex(sent.toByteArray());
    }

    // ---------------------------------------------------------------------------------------------
    // A finding, fixed: under limits where a batch's replies can outgrow a frame, V2Session let the
    // encoder's IllegalArgumentException escape instead of answering ERROR.

    /**
     * Values up to 200 bytes but frames of 600: eight GETs of one large value reply with ~1.6 kB.
     */
    static final ProtocolLimits TIGHT = new ProtocolLimits(16, 200, 600, 8);

    @Example
    void aBatchWhoseRepliesOutgrowTheFrameIsAnsweredWithAnError() {
        ByteArrayWrapper key = new ByteArrayWrapper(new byte[] {'k'});
        List<Request> gets = new ArrayList<>();
        for (int i = 0; i < TIGHT.maxBatchOps(); i++) {
            gets.add(new Request.Get(key));
        }
        byte[] input =
                FuzzBytes.concat(
                        List.of(
                                V2Codec.preamble(),
                                V2Codec.encode(
                                        new Request.Set(key, new ByteArrayWrapper(new byte[200])),
                                        TIGHT),
                                V2Codec.encode(new Request.Batch(gets), TIGHT)));
        Outcome outcome = run(input, new int[] {input.length}, TIGHT);
        byte[] ok = V2Codec.encode(new Response.Ok(), TIGHT);
        assertThat(outcome.ending()).isEqualTo("open");
        // After the SET's OK, one ERROR frame for the batch: 'E' right after its 4-byte header.
        assertThat(outcome.replies()).startsWith(HexFormat.of().formatHex(ok));
        assertThat(outcome.replies().substring(ok.length * 2 + 8, ok.length * 2 + 10))
                .isEqualTo("45");
    }
}
