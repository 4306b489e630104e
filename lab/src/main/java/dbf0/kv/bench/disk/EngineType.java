package dbf0.kv.bench.disk;

import dbf0.kv.storage.lsm.LsmOptions;
import java.io.IOException;
import java.util.Locale;

/** The engines disk-bench runs, by their name on the command line. */
enum EngineType {
    /** dbf0's LSM store. */
    LSM,
    /** RocksDB through rocksdbjni, with options matching dbf0's. */
    ROCKSDB,
    /** dbf0's ConcurrentHashMap behind its write-ahead log. */
    MAP;

    String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static EngineType parse(String text) {
        for (EngineType t : values()) {
            if (t.cliName().equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown type '" + text + "': use lsm, rocksdb or map");
    }

    /** Opens this engine on {@code options}' data directory, with its settings. */
    DiskEngine open(LsmOptions options) throws IOException {
        return switch (this) {
            case LSM -> LsmEngine.open(options);
            case ROCKSDB -> RocksDbEngine.open(options);
            case MAP -> MapEngine.open(options);
        };
    }
}
