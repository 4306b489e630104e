package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.base.server.PendingReplies;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.storage.ForwardingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * V2Session's submit-then-wait for pipelined writes: every write of one read is submitted before
 * any is waited for, but never more than {@link V2Session#MAX_PENDING_WRITES} at once, and the
 * replies still come in request order, a GET seeing the writes before it.
 */
class V2PendingWritesTest {

    /** A store that counts the futures it handed out and not yet waited for. */
    static final class CountingStore extends ForwardingStore {
        int outstanding;
        int maxOutstanding;

        private CompletableFuture<Boolean> track(boolean result) {
            outstanding++;
            maxOutstanding = Math.max(maxOutstanding, outstanding);
            CompletableFuture<Boolean> future =
                    new CompletableFuture<>() {
                        @Override
                        public Boolean join() {
                            outstanding--;
                            return super.join();
                        }
                    };
            future.complete(result);
            return future;
        }

        @Override
        public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
            map.put(key, value);
            return track(true);
        }

        @Override
        public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
            return track(map.delete(key));
        }

        @Override
        public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
            throw new AssertionError("the session should submit, not block");
        }

        @Override
        public boolean delete(ByteArrayWrapper key) {
            throw new AssertionError("the session should submit, not block");
        }
    }

    @Test
    void aLongPipelineOfWritesIsSubmittedInBoundedGroupsAndAnsweredInOrder() throws Exception {
        int n = 3 * PendingReplies.MAX_IN_FLIGHT + 7;
        List<Request> requests = new ArrayList<>();
        List<Response> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(
                    new Request.Set(
                            ByteArrayWrapper.of(i & 0xff, i >> 8), ByteArrayWrapper.of(i & 0xff)));
            expected.add(new Response.Ok());
        }
        requests.add(new Request.Delete(ByteArrayWrapper.of(0, 0)));
        expected.add(new Response.Ok());
        requests.add(new Request.Delete(ByteArrayWrapper.of(0, 0)));
        expected.add(new Response.NotFound());
        requests.add(new Request.Get(ByteArrayWrapper.of(5, 0)));
        expected.add(new Response.Value(ByteArrayWrapper.of(5)));
        requests.add(new Request.Get(ByteArrayWrapper.of(0, 0)));
        expected.add(new Response.NotFound());
        byte[] bytes = V2SessionTest.session(requests.toArray(Request[]::new));

        CountingStore store = new CountingStore();
        SessionFeeder feeder = new SessionFeeder(new V2Session(store, ProtocolLimits.DEFAULTS));
        feeder.feed(bytes, 0, bytes.length); // one read holding the whole pipeline
        assertThat(V2SessionTest.replies(feeder.output.toByteArray())).isEqualTo(expected);
        assertThat(store.maxOutstanding)
                .as("writes submitted before any wait")
                .isGreaterThan(1)
                .isLessThanOrEqualTo(PendingReplies.MAX_IN_FLIGHT);
        assertThat(store.outstanding).as("every write waited for before its reply").isZero();
    }
}
