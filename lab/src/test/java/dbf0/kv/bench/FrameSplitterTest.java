package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.workload.KeyDistribution;
import dbf0.kv.workload.KeySpace;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.OperationMix;
import dbf0.kv.workload.RandomKeyValueSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sharded connector's parts, encoded straight from the drawn operations, are byte for byte what
 * the decoded path sends: the same seeded stream drawn as {@code Request} frames ({@link
 * FrameSource#next}), split by server and encoded by {@link V2Codec}, gives the same bytes and the
 * same kinds per server, frame after frame.
 */
class FrameSplitterTest {

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    private static final KeyedWorkload MIXED =
            new KeyedWorkload(
                    null,
                    1000,
                    KeyDistribution.of("uniform"),
                    new OperationMix(0.4, 0.3, 0.1, 0.2),
                    12,
                    20);

    private static Supplier<FrameSource> source(String workload) {
        return switch (workload) {
            case "seed" ->
                    () ->
                            FrameSource.seed(
                                    new RandomKeyValueSource(16, 64, new Random(7)),
                                    new Random(8),
                                    0.5);
            default -> () -> FrameSource.keyed(MIXED.generator(new KeySpace(1000), new Random(9)));
        };
    }

    private static int jump(byte[] key, int servers) {
        return servers == 1
                ? 0
                : ShardedKeyValueClient.jumpHash(ShardedKeyValueClient.hashKey(key), servers);
    }

    @ParameterizedTest
    @CsvSource({
        "seed, 1, 1",
        "seed, 1, 3",
        "seed, 100, 1",
        "seed, 100, 3",
        "keyed, 1, 3",
        "keyed, 3, 3",
        "keyed, 50, 1",
        "keyed, 50, 3"
    })
    void partsAreTheDecodedPathsBytes(String workload, int batchSize, int servers)
            throws IOException {
        FrameSource decoded = source(workload).get();
        FrameSource inPlace = source(workload).get();
        FramePart[] parts = parts(servers);
        for (int frame = 0; frame < 200; frame++) {
            FrameSource.Frame expected = decoded.next(batchSize, false);
            clear(parts);
            int count = FrameSplitter.next(inPlace, batchSize, parts, key -> jump(key, servers));
            assertThat(count).isEqualTo(expected.kinds().length);
            List<List<Request>> split = new ArrayList<>();
            List<ByteArrayOutputStream> kinds = new ArrayList<>();
            for (int s = 0; s < servers; s++) {
                split.add(new ArrayList<>());
                kinds.add(new ByteArrayOutputStream());
            }
            List<Request> ops =
                    expected.request() instanceof Request.Batch batch
                            ? batch.ops()
                            : List.of(expected.request());
            for (int i = 0; i < ops.size(); i++) {
                int s = jump(keyOf(ops.get(i)), servers);
                split.get(s).add(ops.get(i));
                kinds.get(s).write(expected.kinds()[i]);
            }
            for (int s = 0; s < servers; s++) {
                if (split.get(s).isEmpty()) {
                    assertThat(parts[s].isEmpty()).isTrue();
                    continue;
                }
                Request request =
                        expected.request() instanceof Request.Batch
                                ? new Request.Batch(split.get(s))
                                : expected.request();
                parts[s].finish(LIMITS);
                assertThat(parts[s].toByteArray())
                        .as("frame %d, server %d", frame, s)
                        .isEqualTo(encode(request));
                assertThat(Arrays.copyOf(parts[s].kinds(), parts[s].count()))
                        .isEqualTo(kinds.get(s).toByteArray());
            }
        }
    }

    /** A part taken apart again (after MOVED) and put back on one server is the same frame. */
    @ParameterizedTest
    @CsvSource({"seed, 1", "seed, 100", "keyed, 1", "keyed, 50"})
    void aResplitPartIsTheSameFrameOnItsNewServers(String workload, int batchSize) {
        FrameSource one = source(workload).get();
        FrameSource three = source(workload).get();
        FramePart[] whole = parts(1);
        FramePart[] direct = parts(3);
        FramePart[] resplit = parts(3);
        for (int frame = 0; frame < 100; frame++) {
            clear(whole);
            clear(direct);
            clear(resplit);
            FrameSplitter.next(one, batchSize, whole, key -> 0);
            FrameSplitter.next(three, batchSize, direct, key -> jump(key, 3));
            whole[0].finish(LIMITS);
            FrameSplitter.resplit(whole[0], resplit, key -> jump(key, 3));
            for (int s = 0; s < 3; s++) {
                assertThat(resplit[s].isEmpty()).isEqualTo(direct[s].isEmpty());
                if (!direct[s].isEmpty()) {
                    direct[s].finish(LIMITS);
                    resplit[s].finish(LIMITS);
                    assertThat(resplit[s].toByteArray()).isEqualTo(direct[s].toByteArray());
                    assertThat(Arrays.copyOf(resplit[s].kinds(), resplit[s].count()))
                            .isEqualTo(Arrays.copyOf(direct[s].kinds(), direct[s].count()));
                }
            }
        }
    }

    private static FramePart[] parts(int n) {
        FramePart[] parts = new FramePart[n];
        for (int s = 0; s < n; s++) {
            parts[s] = new FramePart();
        }
        return parts;
    }

    private static void clear(FramePart[] parts) {
        for (FramePart part : parts) {
            part.clear();
        }
    }

    private static byte[] keyOf(Request op) {
        return switch (op) {
            case Request.Get g -> g.key().getArray();
            case Request.Set s -> s.key().getArray();
            default -> throw new AssertionError(op);
        };
    }

    private static byte[] encode(Request request) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        V2Codec.writeRequest(out, request, LIMITS);
        return out.toByteArray();
    }
}
