package dbf0.jmh;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A server session in memory: {@value #OPS} key operations already in an input buffer, handed to
 * the session the event loop would run for that connection, and its replies drained. No socket, so
 * the score is the CPU and the garbage of decoding, applying and encoding; run it with {@code -prof
 * gc} and read {@code gc.alloc.rate.norm}, the bytes allocated per operation.
 *
 * <p>The {@code kind} parameter: {@code v2_get}, {@code v2_set} ({@value #OPS} pipelined frames);
 * {@code v2_batch_get}, {@code v2_batch_set} (one BATCH of {@value #OPS}); {@code resp_get}, {@code
 * resp_set}, {@code resp_del} ({@value #OPS} pipelined commands); {@code resp_mget}, {@code
 * resp_mset} ({@value #OPS} keys, {@value #MULTI} to a command). The store is a {@code
 * ConcurrentHashMap} holding the {@value #OPS} keys, 16-byte keys and 64-byte values; DEL finds
 * nothing after the first pass, which is the same path.
 *
 * <p>The session is the server's own {@code ProtocolSession}, made by reflection (it is private to
 * the server's package), so the same source measures a build whose sessions have another shape.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar SessionBenchmark -prof gc -f 1 -wi 2 -w 1s -i 3 -r 1s
 * </pre>
 */
@State(Scope.Thread)
public class SessionBenchmark extends RunDefaults {

    /** Key operations per invocation, whatever the kind. */
    public static final int OPS = 1000;

    /** Keys per MGET or MSET. */
    public static final int MULTI = 10;

    @Param({
        "v2_get",
        "v2_set",
        "v2_batch_get",
        "v2_batch_set",
        "resp_get",
        "resp_set",
        "resp_del",
        "resp_mget",
        "resp_mset"
    })
    public String kind;

    private ByteSession session;
    private ByteBuffer in;
    private OutputBuffer out;
    private final OutputStream sink = OutputStream.nullOutputStream();

    @Setup
    public void setUp() throws Exception {
        ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        for (int i = 0; i < OPS; i++) {
            map.put(new ByteArrayWrapper(key(i)), new ByteArrayWrapper(value(i)));
        }
        Class<?> contextClass = Class.forName("dbf0.kv.server.ServerContext");
        Constructor<?> context =
                contextClass.getDeclaredConstructor(Store.class, ServerOptions.class);
        context.setAccessible(true);
        Constructor<?> protocolSession =
                Class.forName("dbf0.kv.server.ProtocolSession")
                        .getDeclaredConstructor(contextClass);
        protocolSession.setAccessible(true);
        session =
                (ByteSession)
                        protocolSession.newInstance(
                                context.newInstance(new MapStore(map), ServerOptions.defaults()));
        out = new OutputBuffer(64 * 1024);
        boolean v2 = kind.startsWith("v2");
        if (v2) { // the preamble, once
            session.onRead(ByteBuffer.wrap(new byte[] {(byte) 0xDB, 2}), out);
        }
        byte[] requests = requests();
        in = ByteBuffer.wrap(requests);
        run(); // once, so that a wrong kind fails here and not in the measurement
        if (out.pending() != 0 || in.hasRemaining()) {
            throw new IllegalStateException(kind + ": the session left input or output");
        }
    }

    private byte[] requests() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        switch (kind) {
            case "v2_get" -> {
                for (int i = 0; i < OPS; i++) {
                    v2Frame(bytes, v2Op('G', i, false));
                }
            }
            case "v2_set" -> {
                for (int i = 0; i < OPS; i++) {
                    v2Frame(bytes, v2Op('S', i, true));
                }
            }
            case "v2_batch_get", "v2_batch_set" -> {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                body.write('B');
                body.write(u32(OPS));
                boolean set = kind.endsWith("set");
                for (int i = 0; i < OPS; i++) {
                    body.write(v2Op(set ? 'S' : 'G', i, set));
                }
                v2Frame(bytes, body.toByteArray());
            }
            case "resp_get", "resp_set", "resp_del" -> {
                String name = kind.substring(5).toUpperCase(java.util.Locale.ROOT);
                for (int i = 0; i < OPS; i++) {
                    boolean set = name.equals("SET");
                    respHeader(bytes, set ? 3 : 2, name);
                    respBulk(bytes, key(i));
                    if (set) {
                        respBulk(bytes, value(i));
                    }
                }
            }
            case "resp_mget", "resp_mset" -> {
                boolean set = kind.endsWith("mset");
                for (int i = 0; i < OPS; i += MULTI) {
                    respHeader(bytes, 1 + MULTI * (set ? 2 : 1), set ? "MSET" : "MGET");
                    for (int k = i; k < i + MULTI; k++) {
                        respBulk(bytes, key(k));
                        if (set) {
                            respBulk(bytes, value(k));
                        }
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        }
        return bytes.toByteArray();
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public int run() throws IOException {
        in.position(0);
        ByteSession.Next next = session.onRead(in, out);
        if (next != ByteSession.Next.READ_MORE) {
            throw new IllegalStateException(kind + ": the session answered " + next);
        }
        int written = out.pending();
        out.writeTo(sink);
        return written;
    }

    private static byte[] key(int i) {
        return String.format("key-%012d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        byte[] value = new byte[64];
        java.util.Arrays.fill(value, (byte) ('a' + i % 26));
        return value;
    }

    private static byte[] v2Op(char type, int i, boolean withValue) throws IOException {
        ByteArrayOutputStream op = new ByteArrayOutputStream();
        op.write(type);
        op.write(u32(16));
        op.write(key(i));
        if (withValue) {
            op.write(u32(64));
            op.write(value(i));
        }
        return op.toByteArray();
    }

    private static void v2Frame(ByteArrayOutputStream bytes, byte[] body) throws IOException {
        bytes.write(u32(body.length));
        bytes.write(body);
    }

    private static byte[] u32(int n) {
        return ByteBuffer.allocate(4).putInt(n).array();
    }

    private static void respHeader(ByteArrayOutputStream bytes, int args, String name)
            throws IOException {
        bytes.write(("*" + args + "\r\n").getBytes(StandardCharsets.US_ASCII));
        respBulk(bytes, name.getBytes(StandardCharsets.US_ASCII));
    }

    private static void respBulk(ByteArrayOutputStream bytes, byte[] arg) throws IOException {
        bytes.write(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        bytes.write(arg);
        bytes.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
}
