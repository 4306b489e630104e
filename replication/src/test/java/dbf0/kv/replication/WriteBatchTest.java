package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A log entry's bytes, as docs/formats.md writes them out, and entries that are not entries. */
class WriteBatchTest {

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anEntryIsItsVersionItsCountAndItsWritesInOrder() {
        byte[] entry =
                WriteBatch.encode(
                        List.of(
                                WriteBatch.Op.put(b("k"), b("vv")),
                                WriteBatch.Op.delete(b("k")),
                                WriteBatch.Op.clear()));
        // 01 | 03 | 'P' 01 'k' 02 'v' 'v' | 'D' 01 'k' | 'C'
        assertThat(HexFormat.of().formatHex(entry)).isEqualTo("010350016b0276764401" + "6b43");
        List<WriteBatch.Op> ops = WriteBatch.decode(ByteBuffer.wrap(entry));
        assertThat(ops)
                .containsExactly(
                        WriteBatch.Op.put(b("k"), b("vv")),
                        WriteBatch.Op.delete(b("k")),
                        WriteBatch.Op.clear());
    }

    @Test
    void lengthsPast127TakeTwoVarintBytes() {
        ByteArrayWrapper big = new ByteArrayWrapper(new byte[300]);
        byte[] entry = WriteBatch.encode(List.of(WriteBatch.Op.put(b("k"), big)));
        // 300 = 0b10_0101100: low 7 bits first with the high bit set (ac), then 02
        assertThat(HexFormat.of().formatHex(entry, 0, 7)).isEqualTo("010150016b" + "ac02");
        assertThat(WriteBatch.decode(ByteBuffer.wrap(entry)).get(0).value()).isEqualTo(big);
    }

    @Test
    void bytesThatAreNotAnEntryAreRefusedWithoutBelievingTheirLengths() {
        assertThatThrownBy(() -> decode("02"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 1");
        assertThatThrownBy(() -> decode("0101" + "50" + "ffffffff07")) // a 2 GiB key
                .hasMessageContaining("bytes left");
        assertThatThrownBy(() -> decode("0102" + "43")).hasMessageContaining("ends after 1 of 2");
        assertThatThrownBy(() -> decode("0101" + "58")).hasMessageContaining("unknown write kind");
        assertThatThrownBy(() -> decode("0101" + "43" + "00"))
                .hasMessageContaining("after the last");
        assertThatThrownBy(() -> decode("01" + "ffffffff7f")).hasMessageContaining("past 2^31");
    }

    private static List<WriteBatch.Op> decode(String hex) {
        return WriteBatch.decode(ByteBuffer.wrap(HexFormat.of().parseHex(hex)));
    }
}
