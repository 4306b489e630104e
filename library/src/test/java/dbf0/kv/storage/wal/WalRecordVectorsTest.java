package dbf0.kv.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.ByteArrayWrapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import java.util.zip.CRC32C;
import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every vector of vectors/wal-records.json (written by scripts/wal_vectors.py, an encoder that
 * shares no code with this one): the Java encoder makes exactly those bytes, and the decoder reads
 * them back, or calls the invalid ones bad or partial as the file says.
 */
class WalRecordVectorsTest {

    static JsonObject load() {
        try (InputStream in =
                WalRecordVectorsTest.class.getResourceAsStream("/vectors/wal-records.json")) {
            return JsonParser.parseReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .getAsJsonObject();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] hex(String spaced) {
        try {
            return Hex.decodeHex(spaced.replace(" ", ""));
        } catch (org.apache.commons.codec.DecoderException e) {
            throw new AssertionError(e);
        }
    }

    static Stream<Arguments> section(String name) {
        return StreamSupport.stream(load().getAsJsonArray(name).spliterator(), false)
                .map(e -> e.getAsJsonObject())
                .map(v -> Arguments.of(v.get("name").getAsString(), v));
    }

    static Stream<Arguments> records() {
        return section("records");
    }

    static Stream<Arguments> invalid() {
        return section("invalid");
    }

    static WalRecord record(JsonObject r) {
        return switch (r.get("op").getAsString()) {
            case "put" ->
                    new WalRecord.Put(
                            new ByteArrayWrapper(hex(r.get("key").getAsString())),
                            new ByteArrayWrapper(hex(r.get("value").getAsString())));
            case "delete" ->
                    new WalRecord.Delete(new ByteArrayWrapper(hex(r.get("key").getAsString())));
            case "clear" -> new WalRecord.Clear();
            default -> throw new AssertionError(r);
        };
    }

    @Test
    void theChecksumIsCrc32c() {
        JsonObject check = load().getAsJsonObject("crc32c_check");
        CRC32C crc = new CRC32C();
        crc.update(check.get("input_ascii").getAsString().getBytes(StandardCharsets.US_ASCII));
        assertThat(String.format("%08x", crc.getValue())).isEqualTo(check.get("crc").getAsString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("records")
    void encodesToTheVectorAndDecodesBack(String name, JsonObject vector) {
        WalRecord record = record(vector.getAsJsonObject("record"));
        byte[] expected = hex(vector.get("bytes").getAsString());
        assertThat(Hex.encodeHexString(WalRecord.encode(record)))
                .isEqualTo(Hex.encodeHexString(expected));
        assertThat(WalRecord.encodedSize(record)).isEqualTo(expected.length);

        // Decoding at an offset inside a larger buffer, with bytes after it, reads exactly the
        // record.
        ByteBuffer in = ByteBuffer.allocate(expected.length + 5);
        in.put((byte) 0x55).put(expected).put(new byte[] {1, 2, 3, 4});
        in.flip().position(1);
        WalRecord.Decoded decoded = WalRecord.decode(in);
        assertThat(decoded).isEqualTo(new WalRecord.Good(record, expected.length));
        assertThat(in.position()).as("decode does not move the buffer").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidBytesAreBadOrPartial(String name, JsonObject vector) {
        WalRecord.Decoded decoded =
                WalRecord.decode(ByteBuffer.wrap(hex(vector.get("bytes").getAsString())));
        switch (vector.get("kind").getAsString()) {
            case "bad" -> assertThat(decoded).isInstanceOf(WalRecord.Bad.class);
            case "partial" -> assertThat(decoded).isInstanceOf(WalRecord.Partial.class);
            default -> throw new AssertionError(vector);
        }
    }

    @Test
    void everySingleBitFlipInARecordIsCaught() {
        byte[] good =
                WalRecord.encode(
                        new WalRecord.Put(
                                ByteArrayWrapper.of(1, 2, 3), ByteArrayWrapper.of(4, 5, 6, 7)));
        for (int bit = 0; bit < good.length * 8; bit++) {
            byte[] flipped = good.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(WalRecord.decode(ByteBuffer.wrap(flipped)))
                    .as("bit %d", bit)
                    .isNotInstanceOf(WalRecord.Good.class);
        }
    }
}
