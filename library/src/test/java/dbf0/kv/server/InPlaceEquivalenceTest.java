package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The in-place paths ({@link V2InPlace}, {@code RespInPlace}) answer byte for byte as the decoders
 * do. The same random stream, split into random reads, goes to a session over a map (whose common
 * requests are answered in place) and to one over a store that is not a map (whose batches, writes
 * and the reads behind them take the decoder's path); the replies must be identical. The streams
 * mix hits and misses, batches, errors the decoder must answer, and for RESP both protocols.
 */
class InPlaceEquivalenceTest {

    private static final ProtocolLimits LIMITS =
            new ProtocolLimits(8, 16, 4 * 1024, ProtocolLimits.DEFAULTS.maxBatchOps());

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void v2RepliesAreTheDecodersBytes(int seed) throws Exception {
        byte[] stream = v2Stream(new Random(seed));
        byte[] expected = run(new MapStore(new ConcurrentHashMap<>()), stream, seed, false);
        assertThat(run(new ForwardingStore(), stream, seed, false)).isEqualTo(expected);
        try (DiskLikeStore disk = new DiskLikeStore()) {
            assertThat(run(disk, stream, seed, false)).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void respRepliesAreTheParsersBytes(int seed) throws Exception {
        byte[] stream = respStream(new Random(seed));
        byte[] expected = run(new MapStore(new ConcurrentHashMap<>()), stream, seed, true);
        assertThat(run(new ForwardingStore(), stream, seed, true)).isEqualTo(expected);
        try (DiskLikeStore disk = new DiskLikeStore()) {
            assertThat(run(disk, stream, seed, true)).isEqualTo(expected);
        }
    }

    /**
     * A store on "disk": the reads of about half the keys complete on another thread, so the
     * sessions of an event loop queue them ({@code getAsync}); the replies must not change.
     */
    private static final class DiskLikeStore extends ForwardingStore implements AutoCloseable {
        private final ExecutorService disk = Executors.newSingleThreadExecutor();

        @Override
        public boolean mayWaitForDisk() {
            return true;
        }

        @Override
        public CompletableFuture<ByteArrayWrapper> getAsync(ByteArrayWrapper key) {
            if ((key.hashCode() & 1) == 0) {
                return CompletableFuture.completedFuture(map.get(key));
            }
            return CompletableFuture.supplyAsync(() -> map.get(key), disk);
        }

        @Override
        public void close() {
            disk.shutdownNow();
        }
    }

    private static byte[] run(Store store, byte[] stream, int seed, boolean resp) throws Exception {
        // nio: over a store on disk, the sessions read through getAsync
        ServerOptions options =
                ServerOptions.defaults().withLimits(LIMITS).withModel(ServerModel.NIO);
        ServerContext context = new ServerContext(store, options);
        assertThat(context.asyncReads).isEqualTo(store.mayWaitForDisk());
        SessionFeeder feeder =
                new SessionFeeder(
                        resp
                                ? new RespSession(context)
                                : new V2Session(store, options.limits(), context.asyncReads, null));
        Random splits = new Random(seed);
        int at = 0;
        while (at < stream.length) {
            int to = Math.min(stream.length, at + 1 + splits.nextInt(300));
            feeder.feed(stream, at, to);
            at = to;
        }
        return feeder.output.toByteArray();
    }

    private static byte[] v2Stream(Random random) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(V2Codec.preamble());
        for (int i = 0; i < 400; i++) {
            int pick = random.nextInt(20);
            if (pick == 0) {
                bytes.write(new byte[] {0, 0, 0, 2, 'Z', 0}); // an unknown type: an ERROR reply
            } else if (pick == 1) {
                bytes.write(new byte[] {0, 0, 0, 6, 'G', 0, 0, 0, 9, 1}); // a field past the end
            } else if (pick < 5) {
                List<Request> ops = new ArrayList<>();
                for (int n = random.nextInt(6); n > 0; n--) {
                    ops.add(operation(random));
                }
                bytes.write(V2Codec.encode(new Request.Batch(ops), ProtocolLimits.DEFAULTS));
            } else if (pick == 5) {
                bytes.write(V2Codec.encode(new Request.Ping(), LIMITS));
            } else {
                bytes.write(V2Codec.encode(operation(random), ProtocolLimits.DEFAULTS));
            }
        }
        return bytes.toByteArray();
    }

    /** A GET, SET or DELETE of a few keys; now and then a key or value over {@link #LIMITS}. */
    private static Request operation(Random random) {
        ByteArrayWrapper key = bytes(random, random.nextInt(30) == 0 ? 9 : 1 + random.nextInt(2));
        return switch (random.nextInt(3)) {
            case 0 -> new Request.Get(key);
            case 1 -> new Request.Delete(key);
            default -> new Request.Set(key, bytes(random, random.nextInt(20) == 0 ? 17 : 5));
        };
    }

    private static ByteArrayWrapper bytes(Random random, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + random.nextInt(3));
        }
        return new ByteArrayWrapper(b);
    }

    private static byte[] respStream(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            int pick = random.nextInt(12);
            List<String> args = new ArrayList<>();
            switch (pick) {
                case 0 -> args.addAll(List.of("HELLO", random.nextBoolean() ? "3" : "2"));
                case 1 -> args.addAll(List.of("SET", key(random), "v", "NX")); // an option: error
                case 2 -> args.addAll(List.of("mget", key(random), key(random), key(random)));
                case 3 -> args.addAll(List.of("MSET", key(random), value(random), key(random)));
                case 4 -> args.addAll(List.of("MSet", key(random), value(random)));
                case 5 -> args.addAll(List.of("DEL", key(random), key(random)));
                case 6 -> args.addAll(List.of("EXISTS", key(random)));
                case 7 -> args.addAll(List.of("Get")); // a wrong count of arguments
                case 8, 9 -> args.addAll(List.of("set", key(random), value(random)));
                default -> args.addAll(List.of("GET", key(random)));
            }
            s.append('*').append(args.size()).append("\r\n");
            for (String arg : args) {
                s.append('$').append(arg.length()).append("\r\n").append(arg).append("\r\n");
            }
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static String key(Random random) {
        return random.nextInt(30) == 0 ? "k23456789" : "k" + random.nextInt(4); // 9 bytes: over
    }

    private static String value(Random random) {
        return random.nextInt(20) == 0 ? "v".repeat(16) : "v" + random.nextInt(100); // 17: fatal
    }
}
