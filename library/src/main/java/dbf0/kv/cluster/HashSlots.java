package dbf0.kv.cluster;

/**
 * Which of Redis Cluster's 16,384 hash slots a key belongs to: CRC16 of the key, modulo 16,384.
 *
 * <p>A hash tag lets a client keep keys together: when the key holds a {@code {}, and a {@code }}
 * after it with at least one byte in between, only the bytes between the first {@code {} and the
 * first {@code }} after it are hashed. So {@code {user1}.name} and {@code {user1}.mail} share a
 * slot and one MGET can read both; {@code foo{}{bar}} hashes whole (the first braces are empty).
 *
 * <p>The CRC is CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection), the one Redis
 * names; its check value, the CRC of the nine bytes "123456789", is 0x31C3. A table of 256 entries
 * does a byte per lookup; a second table does two bytes per step ({@link #crc16}), since every
 * client placing every key pays for this.
 */
public final class HashSlots {

    /** The number of slots: a power of two, so the modulo is a mask. */
    public static final int SLOTS = 16384;

    private static final int[] TABLE = table();

    /** For the step's first byte: its CRC pushed on by a further zero byte. */
    private static final int[] PAIR_TABLE = pairTable();

    private HashSlots() {}

    private static int[] table() {
        int[] table = new int[256];
        for (int b = 0; b < 256; b++) {
            int crc = b << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            table[b] = crc & 0xFFFF;
        }
        return table;
    }

    private static int[] pairTable() {
        int[] pair = new int[256];
        for (int i = 0; i < 256; i++) {
            pair[i] = ((TABLE[i] & 0xFF) << 8) ^ TABLE[TABLE[i] >>> 8];
        }
        return pair;
    }

    /**
     * CRC-16/XMODEM of {@code length} bytes of {@code bytes} from {@code offset}.
     *
     * @return the CRC, 0 to 65,535
     */
    public static int crc16(byte[] bytes, int offset, int length) {
        int crc = 0;
        int i = offset;
        int end = offset + length;
        // Two bytes a step. A byte's step is crc = (crc << 8) ^ TABLE[(crc >>> 8) ^ b]; written out
        // twice, and since TABLE is linear (TABLE[x ^ y] = TABLE[x] ^ TABLE[y]), the second lookup
        // splits into one that depends on the first and one that does not; PAIR_TABLE folds the
        // dependent one into the first. So the two lookups run side by side, not one after another.
        for (; i + 1 < end; i += 2) {
            crc = PAIR_TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF] ^ TABLE[(crc ^ bytes[i + 1]) & 0xFF];
        }
        if (i < end) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }

    /**
     * The slot of {@code key}, hash tags honoured.
     *
     * @return 0 to {@link #SLOTS} - 1
     */
    public static int slot(byte[] key) {
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) {
                return crc16(key, open + 1, close - open - 1) & (SLOTS - 1);
            }
        }
        return crc16(key, 0, key.length) & (SLOTS - 1);
    }

    /** Whether {@code slot} names a slot. */
    public static boolean valid(long slot) {
        return slot >= 0 && slot < SLOTS;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
