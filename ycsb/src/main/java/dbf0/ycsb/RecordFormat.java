package dbf0.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * A YCSB record (field name → bytes) as one dbf0 value, since dbf0 stores one value per key:
 *
 * <pre>
 *   record = field*     (in the order given; no count: the value's length ends it)
 *   field  = u16 nameLength, name (UTF-8), u32 valueLength, value bytes   (big-endian lengths)
 * </pre>
 *
 * Ten 100-byte fields, YCSB's default, take 10 × (2 + 6 + 4 + 100) = 1,120 bytes: 12% more than the
 * field bytes alone. docs/ycsb.md has the same description.
 *
 * <p>The binding's hot paths ({@link #encodeIterators}, {@link #readInto}) go straight between
 * YCSB's iterators and the record's bytes: no map, array or header buffer per field in between.
 */
public final class RecordFormat {

    private static final int HEADER = 2 + 4; // the two lengths around a field's name

    private RecordFormat() {}

    public static byte[] encode(Map<String, byte[]> fields) {
        int size = 0;
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            size += HEADER + nameBytes(field.getKey()).length + field.getValue().length;
        }
        byte[] record = new byte[size];
        int at = 0;
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            byte[] value = field.getValue();
            at = putHeader(record, at, nameBytes(field.getKey()), value.length);
            System.arraycopy(value, 0, record, at, value.length);
            at += value.length;
        }
        return record;
    }

    /** The record of YCSB's field values, each iterator drained into it once. */
    public static byte[] encodeIterators(Map<String, ByteIterator> fields) {
        int size = 0;
        for (Map.Entry<String, ByteIterator> field : fields.entrySet()) {
            size += HEADER + nameBytes(field.getKey()).length + valueLength(field.getValue());
        }
        byte[] record = new byte[size];
        int at = 0;
        // in order: an iterator may scribble a few bytes past its own end (YCSB's random one
        // writes six at a time), which the next field's header then overwrites
        for (Map.Entry<String, ByteIterator> field : fields.entrySet()) {
            ByteIterator value = field.getValue();
            int length = valueLength(value);
            at = putHeader(record, at, nameBytes(field.getKey()), length);
            int end = at + length;
            while (at < end) {
                int next = value.nextBuf(record, at);
                if (next <= at) {
                    throw new IllegalStateException("a field's iterator ended before its length");
                }
                at = next;
            }
        }
        return record;
    }

    /** The fields of an encoded record, in their stored order. */
    public static Map<String, byte[]> decode(byte[] record) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        forEachField(
                record,
                new String[0],
                (name, offset, length) ->
                        fields.put(name, Arrays.copyOfRange(record, offset, offset + length)));
        return fields;
    }

    /**
     * Puts the record's fields named in {@code wanted} (all when null) into {@code result}, each a
     * view of the record's bytes, not a copy. {@code names} caches the name last seen at each field
     * position (YCSB's records repeat theirs), so an ASCII name equal to it is not decoded again.
     */
    public static void readInto(
            byte[] record, Set<String> wanted, Map<String, ByteIterator> result, String[] names) {
        forEachField(
                record,
                names,
                (name, offset, length) -> {
                    if (wanted == null || wanted.contains(name)) {
                        result.put(name, new ByteArrayByteIterator(record, offset, length));
                    }
                });
    }

    private interface FieldVisitor {
        void field(String name, int offset, int length);
    }

    private static void forEachField(byte[] record, String[] names, FieldVisitor visitor) {
        int at = 0;
        for (int position = 0; at < record.length; position++) {
            if (record.length - at < 2) {
                throw truncated();
            }
            int nameLength = (record[at] & 0xFF) << 8 | record[at + 1] & 0xFF;
            at += 2;
            if (record.length - at < nameLength + 4) {
                throw truncated();
            }
            String name;
            if (position < names.length && sameAscii(names[position], record, at, nameLength)) {
                name = names[position];
            } else {
                name = new String(record, at, nameLength, StandardCharsets.UTF_8);
                if (position < names.length) {
                    names[position] = name;
                }
            }
            at += nameLength;
            int length =
                    (record[at] & 0xFF) << 24
                            | (record[at + 1] & 0xFF) << 16
                            | (record[at + 2] & 0xFF) << 8
                            | record[at + 3] & 0xFF;
            at += 4;
            if (length < 0 || length > record.length - at) {
                throw new IllegalArgumentException(
                        "a field claims " + length + " bytes, " + (record.length - at) + " remain");
            }
            visitor.field(name, at, length);
            at += length;
        }
    }

    /** Whether {@code name} is ASCII and its bytes are {@code bytes[at, at + length)}. */
    private static boolean sameAscii(String name, byte[] bytes, int at, int length) {
        if (name == null || name.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c >= 0x80 || c != bytes[at + i]) {
                return false;
            }
        }
        return true;
    }

    private static IllegalArgumentException truncated() {
        return new IllegalArgumentException("a record ends inside a field header");
    }

    private static byte[] nameBytes(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw new IllegalArgumentException(
                    "a field name is at most 65535 bytes, got " + bytes.length);
        }
        return bytes;
    }

    private static int valueLength(ByteIterator value) {
        long length = value.bytesLeft();
        if (length > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("a field of " + length + " bytes is too long");
        }
        return (int) length;
    }

    private static int putHeader(byte[] record, int at, byte[] name, int valueLength) {
        record[at++] = (byte) (name.length >>> 8);
        record[at++] = (byte) name.length;
        System.arraycopy(name, 0, record, at, name.length);
        at += name.length;
        record[at++] = (byte) (valueLength >>> 24);
        record[at++] = (byte) (valueLength >>> 16);
        record[at++] = (byte) (valueLength >>> 8);
        record[at++] = (byte) valueLength;
        return at;
    }
}
