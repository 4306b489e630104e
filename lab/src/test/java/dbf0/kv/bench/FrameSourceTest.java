package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.client.KeyValueClientStats;
import dbf0.base.client.LatencyRecorder;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import dbf0.kv.workload.KeyDistribution;
import dbf0.kv.workload.KeySpace;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.OperationMix;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameSourceTest {

    private static final KeyedWorkload RMW_ONLY =
            new KeyedWorkload(
                    null, 100, KeyDistribution.of("uniform"), new OperationMix(0, 0, 0, 1), 8, 4);

    private static FrameSource rmwOnly() {
        return FrameSource.keyed(RMW_ONLY.generator(new KeySpace(100), new Random(1)));
    }

    @Test
    void aReadModifyWriteIsAGetAndASetOfOneKeyInOneFrame() {
        FrameSource.Frame frame = rmwOnly().next(1, false);
        assertThat(frame.request()).isInstanceOf(Request.Batch.class);
        List<Request> ops = ((Request.Batch) frame.request()).ops();
        assertThat(ops).hasSize(2);
        Request.Get get = (Request.Get) ops.get(0);
        Request.Set set = (Request.Set) ops.get(1);
        assertThat(set.key()).isEqualTo(get.key());
        assertThat(frame.kinds()).containsExactly(FrameSource.RMW_READ, FrameSource.RMW_WRITE);
        assertThat(frame.writes()).isTrue();
    }

    @Test
    void anOperationNeverStraddlesTwoFrames() {
        FrameSource frames = rmwOnly();
        for (int i = 0; i < 10; i++) {
            FrameSource.Frame frame = frames.next(3, false); // room for one pair, not two
            assertThat(frame.kinds()).containsExactly(FrameSource.RMW_READ, FrameSource.RMW_WRITE);
        }
        assertThat(frames.next(6, false).kinds()).hasSize(6);
    }

    @Test
    void seedFramesKeepOneRequestPerOperation() {
        FrameSource frames =
                FrameSource.seed(
                        new dbf0.kv.workload.RandomKeyValueSource(4, 4, new Random(2)),
                        new Random(3),
                        0.5);
        FrameSource.Frame single = frames.next(1, false);
        assertThat(single.request()).isNotInstanceOf(Request.Batch.class);
        assertThat(single.kinds()).hasSize(1);
        FrameSource.Frame batch = frames.next(50, false);
        assertThat(((Request.Batch) batch.request()).ops()).hasSize(50);
        FrameSource.Frame barrier = frames.next(50, true);
        assertThat(barrier.kinds()[barrier.kinds().length - 1])
                .as("ends at its first SET")
                .isEqualTo(FrameSource.UPDATE);
    }

    @Test
    void repliesAreCountedByWhatWasAsked() {
        KeyValueClientStats stats = new KeyValueClientStats();
        LatencyRecorder latencies = new LatencyRecorder();
        byte[] kinds = {
            FrameSource.READ,
            FrameSource.UPDATE,
            FrameSource.INSERT,
            FrameSource.RMW_READ,
            FrameSource.RMW_WRITE,
            FrameSource.READ
        };
        Response reply =
                new Response.Batch(
                        List.of(
                                new Response.Value(ByteArrayWrapper.of(1)),
                                new Response.Ok(),
                                new Response.Ok(),
                                new Response.NotFound(),
                                new Response.Ok(),
                                new Response.NotFound()));
        long errors =
                FrameSource.account(
                        new DecodeResult.Frame<>(reply), kinds, 0, 5_000, stats, latencies);
        assertThat(errors).isZero();
        assertThat(stats.getGet()).isEqualTo(2);
        assertThat(stats.getFound()).isEqualTo(1);
        assertThat(stats.getSet()).isEqualTo(1);
        assertThat(stats.getInsert()).isEqualTo(1);
        assertThat(stats.getReadModifyWrite()).isEqualTo(1);
        assertThat(stats.getOperations()).isEqualTo(5);
        assertThat(latencies.histogram().getTotalCount())
                .as("one latency per operation; the pair is one")
                .isEqualTo(5);
    }

    @Test
    void aReplyOfTheWrongShapeIsAnError() {
        KeyValueClientStats stats = new KeyValueClientStats();
        LatencyRecorder latencies = new LatencyRecorder();
        byte[] kinds = {FrameSource.RMW_READ, FrameSource.RMW_WRITE};
        Response wrongKind =
                new Response.Batch(List.of(new Response.Ok(), new Response.Error("boom")));
        assertThat(
                        FrameSource.account(
                                new DecodeResult.Frame<>(wrongKind), kinds, 0, 1, stats, latencies))
                .isEqualTo(2);
        assertThat(stats.getReadModifyWrite()).isZero();
        Response tooFew = new Response.Batch(List.of(new Response.Ok()));
        assertThat(
                        FrameSource.account(
                                new DecodeResult.Frame<>(tooFew), kinds, 0, 1, stats, latencies))
                .isEqualTo(1);
        assertThat(
                        FrameSource.account(
                                new DecodeResult.Invalid<>("bad"), kinds, 0, 1, stats, latencies))
                .isEqualTo(1);
    }

    @Test
    void framesEncodedInPlaceAreTheEncodersBytesAndKinds() throws java.io.IOException {
        for (int batch : new int[] {1, 3, 100}) {
            for (boolean rmw : new boolean[] {false, true}) {
                FrameSource decoded = rmw ? rmwOnly() : seed();
                FrameSource inPlace = rmw ? rmwOnly() : seed();
                FrameSource.Sent sent = new FrameSource.Sent();
                dbf0.base.io.OutputBuffer out = new dbf0.base.io.OutputBuffer(16);
                for (int i = 0; i < 20; i++) {
                    FrameSource.Frame frame = decoded.next(batch, false);
                    inPlace.encodeNext(out, batch, false, sent, ProtocolLimits.DEFAULTS);
                    assertThat(out.toByteArray())
                            .as("batch %d, frame %d", batch, i)
                            .isEqualTo(V2Codec.encode(frame.request(), ProtocolLimits.DEFAULTS));
                    assertThat(java.util.Arrays.copyOf(sent.kinds, sent.count))
                            .isEqualTo(frame.kinds());
                    assertThat(sent.writes).isEqualTo(frame.writes());
                    out.writeTo(java.io.OutputStream.nullOutputStream());
                }
            }
        }
    }

    @Test
    void repliesCountedInPlaceCountAsDecodedOnes() {
        byte[] kinds = {FrameSource.READ, FrameSource.UPDATE, FrameSource.READ};
        Response batch =
                new Response.Batch(
                        List.of(
                                new Response.Value(ByteArrayWrapper.of(1, 2)),
                                new Response.Ok(),
                                new Response.NotFound()));
        ReplyTypes replies = new ReplyTypes();
        byte[] frame = V2Codec.encode(batch, ProtocolLimits.DEFAULTS);
        boolean wellFormed = replies.read(java.nio.ByteBuffer.wrap(frame, 4, frame.length - 4));
        KeyValueClientStats stats = new KeyValueClientStats();
        assertThat(
                        FrameSource.account(
                                replies, wellFormed, kinds, 3, 0, 1, stats, new LatencyRecorder()))
                .isZero();
        assertThat(stats.getGet()).isEqualTo(2);
        assertThat(stats.getFound()).isEqualTo(1);
        assertThat(stats.getSet()).isEqualTo(1);
        assertThat(replies.read(java.nio.ByteBuffer.wrap(new byte[] {'B', 0, 0, 0, 2, 'K'})))
                .as("a batch shorter than its count")
                .isFalse();
        assertThat(replies.read(java.nio.ByteBuffer.wrap(new byte[] {'Z'}))).isFalse();
    }

    private static FrameSource seed() {
        return FrameSource.seed(
                new dbf0.kv.workload.RandomKeyValueSource(4, 6, new Random(2)), new Random(3), 0.5);
    }
}
