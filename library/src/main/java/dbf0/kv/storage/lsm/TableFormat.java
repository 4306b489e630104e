package dbf0.kv.storage.lsm;

/**
 * The constants of the table file format, docs/formats.md: data blocks, a filter block, an index
 * block, then a fixed footer that says where the other two are. Every multi-byte number is
 * big-endian.
 */
final class TableFormat {

    /** "dbf0LSM1" in ASCII: the last 12 bytes of every table are this and a checksum. */
    static final long MAGIC = 0x646266304c534d31L;

    /** The version tables are written in: 2, whose footer adds the key counts. */
    static final int VERSION = 2;

    /**
     * Version 2's footer: u64 index offset, u32 index length, u64 filter offset, u32 filter length,
     * u64 entries, u64 largest sequence number, u32 largest value length, u64 new keys, u64 removed
     * keys, u32 version, u64 magic, u32 CRC32C.
     */
    static final int FOOTER_BYTES = 8 + 4 + 8 + 4 + 8 + 8 + 4 + 8 + 8 + 4 + 8 + 4;

    /**
     * Version 1's footer, still read: as version 2's without the two key counts. In both the last
     * 16 bytes are the version, the magic and the CRC, so the version says how long the footer is.
     */
    static final int FOOTER_V1_BYTES = 8 + 4 + 8 + 4 + 8 + 8 + 4 + 4 + 8 + 4;

    /** The footer's length in a table of {@code version}, or -1 for a version not known. */
    static int footerBytes(int version) {
        return switch (version) {
            case 1 -> FOOTER_V1_BYTES;
            case 2 -> FOOTER_BYTES;
            default -> -1;
        };
    }

    /** Bytes a table's index may have at most; more is a corrupt length, not a table. */
    static final int MAX_INDEX_BYTES = 1 << 30;

    private TableFormat() {}

    /** A table's file name: its number, six digits at least, and {@code .sst}. */
    static String tableName(long number) {
        return String.format("%06d.sst", number);
    }

    /** A write-ahead log's file name: its number and {@code .log}. */
    static String logName(long number) {
        return String.format("%06d.log", number);
    }

    /** The number in a file name such as {@code 000012.log}, or -1 if it is not one of ours. */
    static long number(String name, String suffix) {
        if (!name.endsWith(suffix) || name.length() == suffix.length()) {
            return -1;
        }
        String digits = name.substring(0, name.length() - suffix.length());
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return -1;
            }
        }
        return digits.length() > 18 ? -1 : Long.parseLong(digits);
    }

    private static final java.lang.invoke.VarHandle INT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
                    int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle LONG =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
                    long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /** The big-endian u32 at {@code at}, as every integer of the format is written. */
    static int readInt(byte[] bytes, int at) {
        return (int) INT.get(bytes, at);
    }

    /** The big-endian u64 at {@code at}. */
    static long readLong(byte[] bytes, int at) {
        return (long) LONG.get(bytes, at);
    }
}
