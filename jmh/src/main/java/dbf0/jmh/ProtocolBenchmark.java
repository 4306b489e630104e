package dbf0.jmh;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V1Codec;
import dbf0.kv.protocol.V2Codec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Encoding and decoding of protocol v1 ({@link V1Codec}) and protocol v2 ({@link V2Codec}) messages
 * in memory, with no socket: the CPU a protocol costs per operation, apart from the system calls
 * and the map. The messages carry {@link Workload}'s 16-byte key and 64-byte value.
 *
 * <p>Methods are named {@code protocol_message_direction}:
 *
 * <ul>
 *   <li>{@code getRequest}, {@code setRequest}: a GET and a SET request;
 *   <li>{@code getResponse}: the reply to a GET that found its value (v1 FOUND, v2 VALUE); {@code
 *       setResponse}: v2's OK (v1 does not answer a SET);
 *   <li>{@code batchRequest...PerOp}, {@code batchResponse...PerOp}: a v2 BATCH of {@value
 *       #BATCH_OPS} GETs and its BATCH of {@value #BATCH_OPS} VALUE replies. These are annotated
 *       {@code @OperationsPerInvocation(1000)}: the score is <b>operations</b> per second, directly
 *       comparable with the single messages; batches per second are the score divided by {@value
 *       #BATCH_OPS}.
 * </ul>
 *
 * <p>Each direction is measured the way dbf0 itself uses the codec: requests are encoded into a new
 * array as the clients do ({@code V1Codec.encodeGet}, {@code V2Codec.encode(request, limits)}) and
 * decoded from a {@link ByteBuffer} as the servers do ({@code decodeRequest}); v1 responses are
 * encoded into a new array ({@code encodeGetResponse}) and v2 responses into a reused buffer, as
 * the two server sessions do; responses are decoded from an {@link java.io.InputStream} (here an
 * in-memory one) as the clients do ({@code readGetResponse}, {@code readResponse}). Every result is
 * returned, so JMH's blackhole consumes it; setup checks that each frame decodes to what was
 * encoded, so no method measures an error path. The score is operations per second.
 *
 * <p>From the repository's root, with a JDK 21 or newer as {@code java}:
 *
 * <pre>
 * ./mvnw -q install -DskipTests &amp;&amp; ./mvnw -q -f jmh/pom.xml package
 * java -jar jmh/target/benchmarks.jar ProtocolBenchmark -f 1 -wi 2 -w 1s -i 5 -r 1s
 * </pre>
 *
 * Or {@code scripts/jmh.sh ProtocolBenchmark}; one protocol only: {@code ProtocolBenchmark.v2_}.
 */
@State(Scope.Thread)
public class ProtocolBenchmark extends RunDefaults {

    /** Operations in the measured v2 batch. */
    public static final int BATCH_OPS = 1000;

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    private ByteArrayWrapper key;
    private ByteArrayWrapper value;

    private ByteBuffer v1GetRequest;
    private ByteBuffer v1SetRequest;
    private ByteArrayInputStream v1GetResponse;

    private Request v2Get;
    private Request v2Set;
    private Request v2Batch;
    private Response v2Value;
    private Response v2Ok;
    private Response v2BatchReply;
    private ByteBuffer v2GetRequest;
    private ByteBuffer v2SetRequest;
    private ByteBuffer v2BatchRequest;
    private ByteArrayInputStream v2GetResponse;
    private ByteArrayInputStream v2SetResponse;
    private ByteArrayInputStream v2BatchResponse;

    /**
     * Where responses are encoded, as a server session's output buffer; large enough for the batch
     * reply.
     */
    private ByteBuffer out;

    @Setup(Level.Trial)
    public void encodeFrames() throws IOException {
        ByteArrayWrapper[] keys = Workload.keys(BATCH_OPS);
        key = keys[0];
        value = Workload.valueFor(key);

        v1GetRequest = ByteBuffer.wrap(V1Codec.encodeGet(key));
        v1SetRequest = ByteBuffer.wrap(V1Codec.encodeSet(key, value));
        v1GetResponse = new ByteArrayInputStream(V1Codec.encodeGetResponse(value));

        List<Request> gets = new ArrayList<>(BATCH_OPS);
        List<Response> replies = new ArrayList<>(BATCH_OPS);
        for (ByteArrayWrapper k : keys) {
            gets.add(new Request.Get(k));
            replies.add(new Response.Value(Workload.valueFor(k)));
        }
        v2Get = new Request.Get(key);
        v2Set = new Request.Set(key, value);
        v2Batch = new Request.Batch(gets);
        v2Value = new Response.Value(value);
        v2Ok = new Response.Ok();
        v2BatchReply = new Response.Batch(replies);
        v2GetRequest = ByteBuffer.wrap(V2Codec.encode(v2Get, LIMITS));
        v2SetRequest = ByteBuffer.wrap(V2Codec.encode(v2Set, LIMITS));
        v2BatchRequest = ByteBuffer.wrap(V2Codec.encode(v2Batch, LIMITS));
        v2GetResponse = new ByteArrayInputStream(V2Codec.encode(v2Value, LIMITS));
        v2SetResponse = new ByteArrayInputStream(V2Codec.encode(v2Ok, LIMITS));
        v2BatchResponse = new ByteArrayInputStream(V2Codec.encode(v2BatchReply, LIMITS));
        out = ByteBuffer.allocate(V2Codec.encodedSize(v2BatchReply));

        checkRoundTrips();
    }

    /** Fails the run if a decoder would measure anything but the success path. */
    private void checkRoundTrips() throws IOException {
        expect(frame(new V1Codec.V1Request(V1Codec.GET, key, null)), v1_getRequest_decode());
        expect(frame(new V1Codec.V1Request(V1Codec.SET, key, value)), v1_setRequest_decode());
        expect(value, v1_getResponse_decode());
        expect(frame(v2Get), v2_getRequest_decode());
        expect(frame(v2Set), v2_setRequest_decode());
        expect(frame(v2Batch), v2_batchRequest_decodePerOp());
        expect(frame(v2Value), v2_getResponse_decode());
        expect(frame(v2Ok), v2_setResponse_decode());
        expect(frame(v2BatchReply), v2_batchResponse_decodePerOp());
    }

    private static <T> DecodeResult<T> frame(T value) {
        return new DecodeResult.Frame<>(value);
    }

    private static void expect(Object expected, Object actual) {
        if (!expected.equals(actual)) {
            throw new IllegalStateException("decoded " + actual + ", expected " + expected);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // v1

    @Benchmark
    public byte[] v1_getRequest_encode() {
        return V1Codec.encodeGet(key);
    }

    @Benchmark
    public DecodeResult<V1Codec.V1Request> v1_getRequest_decode() throws ProtocolException {
        return V1Codec.decodeRequest(v1GetRequest.rewind());
    }

    @Benchmark
    public byte[] v1_setRequest_encode() {
        return V1Codec.encodeSet(key, value);
    }

    @Benchmark
    public DecodeResult<V1Codec.V1Request> v1_setRequest_decode() throws ProtocolException {
        return V1Codec.decodeRequest(v1SetRequest.rewind());
    }

    @Benchmark
    public byte[] v1_getResponse_encode() {
        return V1Codec.encodeGetResponse(value);
    }

    @Benchmark
    public ByteArrayWrapper v1_getResponse_decode() throws IOException {
        return V1Codec.readGetResponse(rewound(v1GetResponse));
    }

    // ---------------------------------------------------------------------------------------------
    // v2

    @Benchmark
    public byte[] v2_getRequest_encode() {
        return V2Codec.encode(v2Get, LIMITS);
    }

    @Benchmark
    public DecodeResult<Request> v2_getRequest_decode() throws ProtocolException {
        return V2Codec.decodeRequest(v2GetRequest.rewind(), LIMITS);
    }

    @Benchmark
    public byte[] v2_setRequest_encode() {
        return V2Codec.encode(v2Set, LIMITS);
    }

    @Benchmark
    public DecodeResult<Request> v2_setRequest_decode() throws ProtocolException {
        return V2Codec.decodeRequest(v2SetRequest.rewind(), LIMITS);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH_OPS)
    public byte[] v2_batchRequest_encodePerOp() {
        return V2Codec.encode(v2Batch, LIMITS);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH_OPS)
    public DecodeResult<Request> v2_batchRequest_decodePerOp() throws ProtocolException {
        return V2Codec.decodeRequest(v2BatchRequest.rewind(), LIMITS);
    }

    @Benchmark
    public ByteBuffer v2_getResponse_encode() {
        return encodeAsServer(v2Value);
    }

    @Benchmark
    public DecodeResult<Response> v2_getResponse_decode() throws IOException {
        return readAsClient(v2GetResponse);
    }

    @Benchmark
    public ByteBuffer v2_setResponse_encode() {
        return encodeAsServer(v2Ok);
    }

    @Benchmark
    public DecodeResult<Response> v2_setResponse_decode() throws IOException {
        return readAsClient(v2SetResponse);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH_OPS)
    public ByteBuffer v2_batchResponse_encodePerOp() {
        return encodeAsServer(v2BatchReply);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH_OPS)
    public DecodeResult<Response> v2_batchResponse_decodePerOp() throws IOException {
        return readAsClient(v2BatchResponse);
    }

    // ---------------------------------------------------------------------------------------------
    // The server's and the client's way of calling the v2 codec, shared by single and batch
    // messages

    /** Encodes into the reused buffer, as a server session does into its output buffer. */
    private ByteBuffer encodeAsServer(Response response) {
        V2Codec.encode(response, out.clear(), LIMITS);
        return out;
    }

    /** Reads one response frame from the stream's start, as a client does from its socket. */
    private static DecodeResult<Response> readAsClient(ByteArrayInputStream in) throws IOException {
        return V2Codec.readResponse(rewound(in), LIMITS);
    }

    /** The stream, back at its first byte (a ByteArrayInputStream's mark starts at 0). */
    private static ByteArrayInputStream rewound(ByteArrayInputStream in) {
        in.reset();
        return in;
    }
}
