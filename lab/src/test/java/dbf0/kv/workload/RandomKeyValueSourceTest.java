package dbf0.kv.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V1CodecVectorsTest;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RandomKeyValueSourceTest {

    @Test
    void valueIsDerivedFromKeyAsInTheVectors() {
        JsonObject vectors = V1CodecVectorsTest.vectorsForOtherTests();
        for (JsonElement e : vectors.getAsJsonObject("value_for_key").getAsJsonArray("examples")) {
            JsonObject example = e.getAsJsonObject();
            ByteArrayWrapper key = ByteArrayWrapper.fromHex(example.get("key").getAsString());
            int length = example.get("value_length").getAsInt();
            ByteArrayWrapper expected =
                    ByteArrayWrapper.fromHex(example.get("value").getAsString());
            assertThat(RandomKeyValueSource.expectedValue(key, length)).isEqualTo(expected);
            assertThat(new RandomKeyValueSource(key.length(), length, new Random()).valueFor(key))
                    .isEqualTo(expected);
        }
    }

    @Test
    void keysHaveTheRequestedLengthAndCoverTheOneByteSpace() {
        RandomKeyValueSource source = new RandomKeyValueSource(1, 8, new Random(1));
        Set<ByteArrayWrapper> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ByteArrayWrapper key = source.nextKey();
            assertThat(key.length()).isEqualTo(1);
            seen.add(key.copy());
        }
        assertThat(seen).hasSize(256);
    }

    @Test
    void buffersAreReusedSoTrackersMustCopy() {
        RandomKeyValueSource source = new RandomKeyValueSource(16, 4, new Random(2));
        KeyValueTracker tracker = KeyValueTracker.inMemory();
        ByteArrayWrapper first = source.nextKey();
        ByteArrayWrapper firstCopy = first.copy();
        tracker.trackSet(first);
        ByteArrayWrapper second = source.nextKey();
        assertThat(second).isSameAs(first); // the same wrapper, new contents
        assertThat(tracker.contains(firstCopy)).isTrue();
        assertThat(tracker.contains(second)).isFalse();
        assertThat(tracker.size()).isEqualTo(1);
    }

    @Test
    void noopTrackerRemembersNothing() {
        KeyValueTracker tracker = KeyValueTracker.noop();
        tracker.trackSet(ByteArrayWrapper.of(1));
        assertThat(tracker.contains(ByteArrayWrapper.of(1))).isFalse();
        assertThat(tracker.size()).isZero();
    }
}
