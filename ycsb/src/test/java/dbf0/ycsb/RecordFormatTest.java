package dbf0.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.RandomByteIterator;

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

    @Test
    void iteratorsEncodeAsTheirArraysDo() {
        // YCSB's random iterator fills six bytes at a time, past a 100-byte field's end
        Map<String, ByteIterator> iterators = new LinkedHashMap<>();
        Map<String, byte[]> arrays = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            byte[] value = new RandomByteIterator(100 + i).toArray();
            iterators.put("field" + i, new ByteArrayByteIterator(value));
            arrays.put("field" + i, value);
        }
        assertArrayEquals(RecordFormat.encode(arrays), RecordFormat.encodeIterators(iterators));

        Map<String, ByteIterator> random = new LinkedHashMap<>();
        random.put("a", new RandomByteIterator(100));
        random.put("b", new RandomByteIterator(7));
        Map<String, byte[]> back = RecordFormat.decode(RecordFormat.encodeIterators(random));
        assertEquals(List.of("a", "b"), List.copyOf(back.keySet()));
        assertEquals(100, back.get("a").length);
        assertEquals(7, back.get("b").length);
    }

    @Test
    void readIntoPutsTheWantedFieldsAsViews() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("x", new byte[] {1, 2});
        fields.put("y", new byte[] {3});
        byte[] record = RecordFormat.encode(fields);
        String[] names = {null, "z"}; // the cached name at position 1 is not the record's
        Map<String, ByteIterator> all = new HashMap<>();
        RecordFormat.readInto(record, null, all, names);
        assertEquals(Set.of("x", "y"), all.keySet());
        assertArrayEquals(new byte[] {1, 2}, all.get("x").toArray());
        assertArrayEquals(new byte[] {3}, all.get("y").toArray());
        assertEquals(List.of("x", "y"), List.of(names));
        Map<String, ByteIterator> some = new HashMap<>();
        RecordFormat.readInto(record, Set.of("y"), some, names);
        assertEquals(Set.of("y"), some.keySet());
        assertArrayEquals(new byte[] {3}, some.get("y").toArray());
    }
}
