package dbf0.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

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
 */
public final class RecordFormat {

    private RecordFormat() {}

    public static byte[] encode(Map<String, byte[]> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey().getBytes(StandardCharsets.UTF_8);
            if (name.length > 0xFFFF) {
                throw new IllegalArgumentException(
                        "a field name is at most 65535 bytes, got " + name.length);
            }
            byte[] value = field.getValue();
            ByteBuffer header = ByteBuffer.allocate(2 + name.length + 4);
            header.putShort((short) name.length).put(name).putInt(value.length);
            out.writeBytes(header.array());
            out.writeBytes(value);
        }
        return out.toByteArray();
    }

    /** The fields of an encoded record, in their stored order. */
    public static Map<String, byte[]> decode(byte[] record) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        ByteBuffer in = ByteBuffer.wrap(record);
        try {
            while (in.hasRemaining()) {
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                int length = in.getInt();
                if (length < 0 || length > in.remaining()) {
                    throw new IllegalArgumentException(
                            "a field claims " + length + " bytes, " + in.remaining() + " remain");
                }
                fields.put(
                        new String(name, StandardCharsets.UTF_8),
                        Arrays.copyOfRange(record, in.position(), in.position() + length));
                in.position(in.position() + length);
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a record ends inside a field header", e);
        }
        return fields;
    }
}
