package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.base.server.ByteSession;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolException;
import dbf0.kv.protocol.V1Codec;
import java.io.EOFException;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** v1 through the protocol dispatcher, with requests split at every byte boundary. */
class V1SessionTest {

    @Test
    void setSplitAtEveryBoundaryIsAppliedOnceAndClosesWithoutReply() throws Exception {
        byte[] set =
                V1Codec.encodeSet(ByteArrayWrapper.of(1, 2), ByteArrayWrapper.of(0xaa, 0xbb, 0xcc));
        for (int split = 0; split <= set.length; split++) {
            var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
            SessionFeeder feeder = new SessionFeeder(SessionFeeder.session(map));
            feeder.feed(set, 0, split);
            assertThat(feeder.last)
                    .as("split %d, first part", split)
                    .isEqualTo(
                            split == set.length
                                    ? ByteSession.Next.CLOSE_AFTER_WRITE
                                    : ByteSession.Next.READ_MORE);
            assertThat(map).hasSize(split == set.length ? 1 : 0);
            if (split < set.length) {
                assertThat(feeder.feed(set, split, set.length))
                        .isEqualTo(ByteSession.Next.CLOSE_AFTER_WRITE);
            }
            assertThat(map)
                    .containsEntry(
                            ByteArrayWrapper.of(1, 2), ByteArrayWrapper.of(0xaa, 0xbb, 0xcc));
            assertThat(feeder.output.toByteArray()).isEmpty();
        }
    }

    @Test
    void getSplitAtEveryBoundaryAnswersFoundOrNotFound() throws Exception {
        byte[] get = V1Codec.encodeGet(ByteArrayWrapper.of(7));
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        for (int split = 0; split <= get.length; split++) {
            assertThat(new SessionFeeder(SessionFeeder.session(map)).feedSplit(get, split))
                    .containsExactly('n');
        }
        map.put(ByteArrayWrapper.of(7), ByteArrayWrapper.of(0x11));
        for (int split = 0; split <= get.length; split++) {
            assertThat(new SessionFeeder(SessionFeeder.session(map)).feedSplit(get, split))
                    .containsExactly('f', 1, 0x11);
        }
    }

    @Test
    void cutOffRequestAndSilentConnectionAreEndOfStreamErrors() throws Exception {
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        SessionFeeder cut = new SessionFeeder(SessionFeeder.session(map));
        cut.feed(new byte[] {'g', 5, 1, 2}, 0, 4);
        assertThatThrownBy(() -> cut.session.onEndOfStream(4))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("4 bytes");
        assertThatThrownBy(() -> SessionFeeder.session(map).onEndOfStream(0))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("no request");
    }

    @Test
    void unknownFirstByteAndBadPrefixAreProtocolErrors() {
        var map = new ConcurrentHashMap<ByteArrayWrapper, ByteArrayWrapper>();
        assertThatThrownBy(
                        () ->
                                new SessionFeeder(SessionFeeder.session(map))
                                        .feed(new byte[] {'x', 1, 'a'}, 0, 3))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("0x78");
        assertThatThrownBy(
                        () ->
                                new SessionFeeder(SessionFeeder.session(map))
                                        .feed(new byte[] {'s', (byte) 0x80}, 0, 2))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("0x80");
    }
}
