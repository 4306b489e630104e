package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.V2Codec;
import java.nio.ByteBuffer;

/**
 * One operation of a load generator's workload as drawn, before it becomes bytes: one part, or two
 * for a read-modify-write (a GET and a SET of one record). Reused for every draw, so drawing costs
 * no object; a source that reuses its own key and value buffers ({@link
 * dbf0.kv.workload.RandomKeyValueSource}) leaves them here, valid until the next draw, and whoever
 * keeps them longer copies them.
 */
final class DrawnOp {

    /** How many parts; 0 when nothing is drawn. */
    int parts;

    /** Whether the operation writes. */
    boolean writes;

    /** Per part: {@link V2Codec#GET} or {@link V2Codec#SET}. */
    final byte[] types = new byte[2];

    /** Per part: its kind, as {@link FrameSource} counts replies. */
    final byte[] kinds = new byte[2];

    final ByteArrayWrapper[] keys = new ByteArrayWrapper[2];

    /** Per part: the value a SET writes; null for a GET. */
    final ByteArrayWrapper[] values = new ByteArrayWrapper[2];

    void get(byte kind, ByteArrayWrapper key) {
        add(V2Codec.GET, kind, key, null);
    }

    void set(byte kind, ByteArrayWrapper key, ByteArrayWrapper value) {
        add(V2Codec.SET, kind, key, value);
        writes = true;
    }

    private void add(byte type, byte kind, ByteArrayWrapper key, ByteArrayWrapper value) {
        types[parts] = type;
        kinds[parts] = kind;
        keys[parts] = key;
        values[parts] = value;
        parts++;
    }

    /** Bytes part {@code i} takes in a frame: type, key field, value field for a SET. */
    int size(int i) {
        return 1 + 4 + keys[i].length() + (values[i] == null ? 0 : 4 + values[i].length());
    }

    /** Writes part {@code i} as a frame holds it: type, key field, value field for a SET. */
    void put(ByteBuffer out, int i) {
        out.put(types[i]);
        out.putInt(keys[i].length()).put(keys[i].getArray());
        if (values[i] != null) {
            out.putInt(values[i].length()).put(values[i].getArray());
        }
    }

    void clear() {
        parts = 0;
        writes = false;
    }
}
