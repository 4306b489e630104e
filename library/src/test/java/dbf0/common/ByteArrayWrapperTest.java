package dbf0.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ByteArrayWrapperTest {

    @Test
    void equalBytesAreEqualKeys() {
        Map<ByteArrayWrapper, String> map = new HashMap<>();
        map.put(new ByteArrayWrapper(new byte[] {1, 2}), "x");
        assertThat(map.get(ByteArrayWrapper.of(1, 2))).isEqualTo("x");
        assertThat(ByteArrayWrapper.of(1, 2))
                .isNotEqualTo(ByteArrayWrapper.of(1, 3))
                .isNotEqualTo(ByteArrayWrapper.of(1));
        assertThat(ByteArrayWrapper.of(1, 2).hashCode())
                .isEqualTo(ByteArrayWrapper.of(1, 2).hashCode());
    }

    @Test
    void toStringIsLowerCaseHex() {
        assertThat(ByteArrayWrapper.of(0x0a, 0xff, 0x00).toString()).isEqualTo("0aff00");
        assertThat(ByteArrayWrapper.of().toString()).isEmpty();
        assertThat(ByteArrayWrapper.fromHex("0AFF00"))
                .isEqualTo(ByteArrayWrapper.of(0x0a, 0xff, 0));
        assertThatThrownBy(() -> ByteArrayWrapper.fromHex("zz"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void copyIsIndependentOfTheOriginalBuffer() {
        byte[] buffer = {1, 2, 3};
        ByteArrayWrapper original = new ByteArrayWrapper(buffer);
        ByteArrayWrapper copy = original.copy();
        buffer[0] = 9;
        assertThat(copy).isEqualTo(ByteArrayWrapper.of(1, 2, 3));
        assertThat(original).isEqualTo(ByteArrayWrapper.of(9, 2, 3));
    }

    @Test
    void oneByteKeysSpreadOverTheWholeHashRange() {
        // HashMap indexes with the low bits: the 256 one-byte keys should not share a few bins of a
        // large table (Arrays.hashCode alone maps them to 256 adjacent integers).
        Set<Integer> bins = new HashSet<>();
        int mask = (1 << 16) - 1;
        for (int b = 0; b < 256; b++) {
            int h = ByteArrayWrapper.of(b).hashCode();
            bins.add((h ^ (h >>> 16)) & mask);
        }
        int maxBin = bins.stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertThat(bins).hasSizeGreaterThan(250);
        assertThat(maxBin).isGreaterThan(mask / 2);
    }

    @Test
    void keysThatDifferOnlyInTheirLastBytesGetDistinctCodes() {
        // The keyed workloads' records: a big-endian index in the last bytes of a 16-byte key. A
        // base-31 polynomial gave these 100,000 keys 9,122 codes, which treeified
        // ConcurrentHashMap's
        // bins; a good 32-bit hash collides here about once by chance.
        Set<Integer> codes = new HashSet<>();
        for (int index = 0; index < 100_000; index++) {
            byte[] key = new byte[16];
            for (int i = 15, shift = 0; shift < 64; i--, shift += 8) {
                key[i] = (byte) (index >>> shift);
            }
            codes.add(new ByteArrayWrapper(key).hashCode());
        }
        assertThat(codes).hasSizeGreaterThan(99_990);
    }

    @Test
    void everyByteAndTheLengthChangeTheCode() {
        byte[] key = new byte[13]; // a full word and a tail
        int base = new ByteArrayWrapper(key.clone()).hashCode();
        for (int i = 0; i < key.length; i++) {
            byte[] changed = key.clone();
            changed[i] = 1;
            assertThat(new ByteArrayWrapper(changed).hashCode())
                    .as("byte %d", i)
                    .isNotEqualTo(base);
        }
        assertThat(new ByteArrayWrapper(new byte[12]).hashCode()).isNotEqualTo(base);
        assertThat(new ByteArrayWrapper(new byte[0]).hashCode())
                .isNotEqualTo(new ByteArrayWrapper(new byte[1]).hashCode());
    }

    @Test
    void ordersUnsigned() {
        assertThat(ByteArrayWrapper.of(0x01).compareTo(ByteArrayWrapper.of(0xff))).isNegative();
        assertThat(ByteArrayWrapper.of(1, 2).compareTo(ByteArrayWrapper.of(1, 2))).isZero();
    }
}
