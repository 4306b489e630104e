package dbf0.kv.bench.disk;

import dbf0.kv.storage.lsm.LsmOptions;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The engines disk-bench runs, by their name on the command line: dbf0's own stores first, then the
 * engines they are measured against, each set up to match dbf0's settings where it has a
 * counterpart and stating its own where it has none (see each adapter's describe()).
 */
enum EngineType {
    /** dbf0's LSM store. */
    LSM,
    /** RocksDB through rocksdbjni, with options matching dbf0's. */
    ROCKSDB,
    /** dbf0's ConcurrentHashMap behind its write-ahead log. */
    MAP,
    /** dbf0's B+tree store: pages updated in place, behind its write-ahead log. */
    BTREE,
    /** SQLite through sqlite-jdbc: a WITHOUT ROWID table in WAL mode. */
    SQLITE,
    /** H2's MVStore: a copy-on-write B-tree in pure Java. */
    MVSTORE,
    /** LMDB through lmdbjava: a copy-on-write B+tree in a memory map. */
    LMDB;

    String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static EngineType parse(String text) {
        for (EngineType t : values()) {
            if (t.cliName().equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException(
                "unknown type '"
                        + text
                        + "': use "
                        + Arrays.stream(values())
                                .map(EngineType::cliName)
                                .collect(Collectors.joining(", ")));
    }

    /** Whether --compaction applies: the LSM trees compact; the others do not, in that sense. */
    boolean compacts() {
        return this == LSM || this == ROCKSDB;
    }

    /**
     * Opens this engine on {@code options}' data directory, with its settings.
     *
     * @param options the data directory, the fsync policy and the sizes every type reads
     * @param pageSize the page size in bytes for the engines that take one (btree, sqlite)
     */
    DiskEngine open(LsmOptions options, int pageSize) throws IOException {
        return switch (this) {
            case LSM -> LsmEngine.open(options);
            case ROCKSDB -> RocksDbEngine.open(options);
            case MAP -> MapEngine.open(options);
            case BTREE -> BTreeEngine.open(options, pageSize);
            case SQLITE -> SqliteEngine.open(options, pageSize);
            case MVSTORE -> MvStoreEngine.open(options);
            case LMDB -> LmdbEngine.open(options);
        };
    }
}
