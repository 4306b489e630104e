package dbf0.kv.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * CRC16 and the key-to-slot rule against published values: CRC-16/XMODEM's check value, and the
 * slots redis-server 7.0's CLUSTER KEYSLOT gives, hash tags included (the cluster spec's examples).
 */
class HashSlotsTest {

    static int slot(String key) {
        return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    }

    static int crc(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return HashSlots.crc16(b, 0, b.length);
    }

    @Test
    void crc16IsXmodem() {
        assertThat(crc("123456789")).isEqualTo(0x31C3);
        assertThat(crc("")).isZero();
    }

    /** The table-driven CRC, two bytes a step, against the polynomial division bit by bit. */
    @Test
    void crc16MatchesTheBitwiseDefinition() {
        Random random = new Random(5);
        for (int n = 0; n < 2000; n++) {
            byte[] bytes = new byte[random.nextInt(40)];
            random.nextBytes(bytes);
            int offset = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            int length = bytes.length - offset;
            int expected = 0;
            for (int i = offset; i < offset + length; i++) {
                expected ^= (bytes[i] & 0xFF) << 8;
                for (int bit = 0; bit < 8; bit++) {
                    expected = (expected & 0x8000) != 0 ? (expected << 1) ^ 0x1021 : expected << 1;
                }
                expected &= 0xFFFF;
            }
            assertThat(HashSlots.crc16(bytes, offset, length)).isEqualTo(expected);
        }
    }

    @Test
    void slotsAsRedisComputesThem() {
        assertThat(slot("somekey")).isEqualTo(11058);
        assertThat(slot("foo")).isEqualTo(12182);
        assertThat(slot("bar")).isEqualTo(5061);
        assertThat(slot("hello")).isEqualTo(866);
        assertThat(slot("")).isZero();
    }

    @Test
    void hashTagsAsTheSpecDefinesThem() {
        // Only what is between the first { and the first } after it is hashed.
        assertThat(slot("{user1000}.following")).isEqualTo(3443).isEqualTo(slot("user1000"));
        assertThat(slot("{user1000}.followers")).isEqualTo(slot("{user1000}.following"));
        assertThat(slot("foo{bar}{zap}")).isEqualTo(5061).isEqualTo(slot("bar"));
        assertThat(slot("foo{{bar}}zap")).isEqualTo(4015).isEqualTo(slot("{bar"));
        assertThat(slot("a{b}c")).isEqualTo(3300).isEqualTo(slot("b"));
        // Empty braces first: the whole key is hashed.
        assertThat(slot("foo{}{bar}")).isEqualTo(8363).isEqualTo(crc("foo{}{bar}") & 16383);
        assertThat(slot("{}")).isEqualTo(15257);
        assertThat(slot("no}tag{")).isEqualTo(crc("no}tag{") & 16383);
    }

    @Test
    void validSlots() {
        assertThat(HashSlots.valid(0)).isTrue();
        assertThat(HashSlots.valid(16383)).isTrue();
        assertThat(HashSlots.valid(16384)).isFalse();
        assertThat(HashSlots.valid(-1)).isFalse();
    }
}
