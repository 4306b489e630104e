package dbf0.kv.bench;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.workload.KeyValueSource;
import java.util.Random;

/**
 * {@code --history-keys N}: keys drawn uniformly from N fixed keys, so that a recorded history has
 * many operations per key (random keys of the usual lengths almost never repeat, and a history
 * whose keys never repeat shows nothing a checker could reject).
 *
 * <p>Key {@code i} is {@code i} in big-endian bytes, left-padded to {@code keyLength}. Every SET
 * writes a value no other SET writes (this source's id and a sequence number in the first eight
 * bytes, when the value is that long): a GET's answer then names the one write it saw, which is
 * what lets a checker tell a stale read from a fresh one.
 */
final class HistoryKeySource implements KeyValueSource {

    private final ByteArrayWrapper[] keys;
    private final Random random;
    private final int sourceId;
    private final byte[] value;
    private final ByteArrayWrapper valueWrapper;
    private int sequence;

    /**
     * @param sourceId distinct for every source of a run, so two clients never write the same value
     */
    HistoryKeySource(int count, int keyLength, int valueLength, int sourceId, Random random) {
        if (count < 1) {
            throw new IllegalArgumentException("--history-keys must be at least 1, got " + count);
        }
        if (keyLength < 4 && count > 1 << (8 * keyLength)) {
            throw new IllegalArgumentException(
                    "--history-keys "
                            + count
                            + " does not fit in "
                            + keyLength
                            + "-byte keys (at most "
                            + (1 << (8 * keyLength))
                            + ")");
        }
        this.keys = new ByteArrayWrapper[count];
        for (int i = 0; i < count; i++) {
            byte[] k = new byte[keyLength];
            for (int b = 0; b < Math.min(4, keyLength); b++) {
                k[keyLength - 1 - b] = (byte) (i >>> (8 * b));
            }
            keys[i] = new ByteArrayWrapper(k);
        }
        this.random = random;
        this.sourceId = sourceId;
        this.value = new byte[valueLength];
        this.valueWrapper = new ByteArrayWrapper(value);
    }

    @Override
    public ByteArrayWrapper nextKey() {
        return keys[random.nextInt(keys.length)];
    }

    @Override
    public ByteArrayWrapper valueFor(ByteArrayWrapper key) {
        long tag = ((long) sourceId << 32) | (sequence++ & 0xffffffffL);
        // The tag's low bytes when the value is shorter: the sequence still differs within a
        // source.
        int n = Math.min(8, value.length);
        for (int b = 0; b < n; b++) {
            value[b] = (byte) (tag >>> (8 * (n - 1 - b)));
        }
        return valueWrapper;
    }
}
