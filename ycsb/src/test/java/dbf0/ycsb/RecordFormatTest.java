package dbf0.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordFormatTest {

    @Test
    void roundTripsFieldsInOrder() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("field0", new byte[] {1, 2, 3});
        fields.put("é", new byte[0]);
        fields.put("field9", new byte[100]);
        Map<String, byte[]> back = RecordFormat.decode(RecordFormat.encode(fields));
        assertEquals(List.of("field0", "é", "field9"), List.copyOf(back.keySet()));
        assertArrayEquals(new byte[] {1, 2, 3}, back.get("field0"));
        assertEquals(0, back.get("é").length);
        assertEquals(100, back.get("field9").length);
    }

    @Test
    void theBytesAreTheDocumentedLayout() {
        byte[] encoded = RecordFormat.encode(Map.of("ab", new byte[] {9}));
        assertArrayEquals(new byte[] {0, 2, 'a', 'b', 0, 0, 0, 1, 9}, encoded);
    }

    @Test
    void aTruncatedRecordIsRefused() {
        byte[] encoded = RecordFormat.encode(Map.of("ab", new byte[] {9, 9}));
        for (int cut = 1; cut < encoded.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(encoded, cut);
            assertThrows(
                    IllegalArgumentException.class,
                    () -> RecordFormat.decode(part),
                    "cut at " + cut);
        }
    }
}
