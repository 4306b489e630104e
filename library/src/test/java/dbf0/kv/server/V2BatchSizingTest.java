package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * How V2Session sizes a BATCH's reply before applying it: the dry run that reads every GET's value
 * is skipped when the store's bound on value lengths shows the reply must fit, and still runs,
 * refusing the batch with nothing applied, when it might not.
 */
class V2BatchSizingTest {

    /** A MapStore that counts reads, optionally hiding its bound on value lengths. */
    static final class ReadCountingStore extends ForwardingStore {
        final boolean tracksBound;
        int gets;

        ReadCountingStore(boolean tracksBound) {
            this.tracksBound = tracksBound;
        }

        @Override
        public ByteArrayWrapper get(ByteArrayWrapper key) {
            gets++;
            return map.get(key);
        }

        @Override
        public long largestValueBytes() {
            return tracksBound
                    ? map.largestValueBytes()
                    : Long.MAX_VALUE; // Store's default: no bound known
        }
    }

    private static List<Response> run(Store store, ProtocolLimits limits, Request request)
            throws Exception {
        byte[] bytes = V2SessionTest.session(request);
        SessionFeeder feeder = new SessionFeeder(new V2Session(store, limits));
        feeder.feed(bytes, 0, bytes.length);
        return V2SessionTest.replies(feeder.output.toByteArray());
    }

    private static Request.Batch gets(int count, ByteArrayWrapper key) {
        List<Request> ops = new ArrayList<>();
        ops.add(
                new Request.Set(
                        ByteArrayWrapper.of(9),
                        ByteArrayWrapper.of(9))); // must not be applied if refused
        for (int i = 0; i < count; i++) {
            ops.add(new Request.Get(key));
        }
        return new Request.Batch(ops);
    }

    @Test
    void mapStoreBoundsItsValuesAndNeverLowersTheBound() {
        MapStore store =
                new MapStore(
                        new ConcurrentHashMap<>(
                                java.util.Map.of(
                                        ByteArrayWrapper.of(1),
                                        new ByteArrayWrapper(new byte[40]))));
        assertThat(store.largestValueBytes())
                .as("a map filled before it was wrapped")
                .isEqualTo(40);
        store.put(ByteArrayWrapper.of(2), new ByteArrayWrapper(new byte[100]));
        store.put(ByteArrayWrapper.of(3), new ByteArrayWrapper(new byte[10]));
        store.delete(ByteArrayWrapper.of(2));
        assertThat(store.largestValueBytes()).isEqualTo(100);
    }

    @Test
    void aBatchThatMustFitReadsEachValueOnce() throws Exception {
        ReadCountingStore store = new ReadCountingStore(true);
        ByteArrayWrapper key = ByteArrayWrapper.of(1);
        store.put(key, new ByteArrayWrapper(new byte[64]));
        List<Response> replies = run(store, ProtocolLimits.DEFAULTS, gets(1000, key));
        assertThat(replies).hasSize(1);
        assertThat(((Response.Batch) replies.get(0)).replies()).hasSize(1001);
        assertThat(store.gets).isEqualTo(1000);
    }

    @Test
    void getsSeeTheBatchsOwnEarlierWritesReadBackFromAStoreThatHasDoneThem() throws Exception {
        ReadCountingStore store = new ReadCountingStore(true);
        ByteArrayWrapper key = ByteArrayWrapper.of(7);
        ByteArrayWrapper one = ByteArrayWrapper.of(1);
        ByteArrayWrapper two = ByteArrayWrapper.of(2);
        List<Response> replies =
                run(
                        store,
                        ProtocolLimits.DEFAULTS,
                        new Request.Batch(
                                List.of(
                                        new Request.Set(key, one),
                                        new Request.Get(key),
                                        new Request.Delete(key),
                                        new Request.Get(key),
                                        new Request.Set(key, two),
                                        new Request.Get(key))));
        assertThat(((Response.Batch) replies.get(0)).replies())
                .containsExactly(
                        new Response.Ok(),
                        new Response.Value(one),
                        new Response.Ok(),
                        new Response.NotFound(),
                        new Response.Ok(),
                        new Response.Value(two));
        assertThat(store.gets)
                .as("a MapStore has done each write: its GETs read the store")
                .isEqualTo(3);
    }

    @Test
    void aStoreWithoutABoundIsSizedByADryRun() throws Exception {
        ReadCountingStore store = new ReadCountingStore(false);
        ByteArrayWrapper key = ByteArrayWrapper.of(1);
        store.put(key, new ByteArrayWrapper(new byte[64]));
        run(store, ProtocolLimits.DEFAULTS, gets(1000, key));
        assertThat(store.gets).isEqualTo(2000);
    }

    @Test
    void aBatchThatMightNotFitIsStillRefusedWithNothingApplied() throws Exception {
        ReadCountingStore store = new ReadCountingStore(true);
        ByteArrayWrapper key = ByteArrayWrapper.of(1);
        store.put(key, new ByteArrayWrapper(new byte[1000]));
        ProtocolLimits small =
                new ProtocolLimits(16, 1000, 8 * 1024, ProtocolLimits.DEFAULTS.maxBatchOps());
        List<Response> replies = run(store, small, gets(10, key)); // 10 x 1,005 bytes > 8 KiB
        assertThat(replies).singleElement().isInstanceOf(Response.Error.class);
        assertThat(((Response.Error) replies.get(0)).message()).contains("nothing applied");
        assertThat(store.get(ByteArrayWrapper.of(9))).isNull();
    }
}
