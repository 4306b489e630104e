package dbf0.kv.bench.options;

import dbf0.common.ByteSizes;
import dbf0.common.Durations;
import dbf0.common.cli.Cli;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.CompactionStyle;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --store} and the disk store's options, shared by {@code server} and {@code bench} as a
 * picocli mixin. {@code --store map} (the default) serves a map, with the write-ahead log's flags
 * as before; {@code --store lsm} serves the LSM store in {@code --data-dir}, whose own log follows
 * {@code --fsync} and {@code --fsync-interval}; {@code --store btree} serves the B+tree store there
 * the same way.
 */
public final class StoreCliOptions {

    /** The log's flags that only a map's write-ahead log has: the LSM store refuses them. */
    static final List<String> WAL_ONLY =
            List.of(
                    "--commit-wait-us",
                    "--recover-truncate",
                    "--rewrite-growth",
                    "--rewrite-min-size");

    /** The LSM store's own flags: a map refuses them. */
    static final List<String> LSM_ONLY =
            List.of("--memtable-size", "--block-cache", "--compaction");

    /** The B+tree store's own flags: the other stores refuse them. */
    static final List<String> BTREE_ONLY =
            List.of("--page-size", "--buffer-pool", "--checkpoint-size");

    @Option(
            names = "--store",
            paramLabel = "KIND",
            description =
                    "map (an in-memory map, --map; with --data-dir a write-ahead log under it),"
                            + " lsm (the LSM-tree store on disk in --data-dir, which may hold more"
                            + " than memory) or btree (the B+tree store on disk in --data-dir)"
                            + " (default: ${DEFAULT-VALUE})")
    String store = "map";

    @Option(
            names = "--page-size",
            paramLabel = "SIZE",
            description =
                    "btree: the page size of a new tree's file, a power of two from 1k to 32k"
                            + " (default: 4k)")
    String pageSize;

    @Option(
            names = "--buffer-pool",
            paramLabel = "SIZE",
            description = "btree: the bound of the pages held in memory, e.g. 256m (default: 64m)")
    String bufferPool;

    @Option(
            names = "--checkpoint-size",
            paramLabel = "SIZE",
            description =
                    "btree: a checkpoint starts once the log holds this much, e.g. 16m (default:"
                            + " 64m)")
    String checkpointSize;

    @Option(
            names = "--memtable-size",
            paramLabel = "SIZE",
            description =
                    "lsm: bytes of writes held in memory before they are written to a table, e.g."
                            + " 64m (default: 32m)")
    String memtableSize;

    @Option(
            names = "--block-cache",
            paramLabel = "SIZE",
            description = "lsm: the bound of the cache of table blocks, e.g. 256m (default: 64m)")
    String blockCache;

    @Option(
            names = "--compaction",
            paramLabel = "STYLE",
            description = "lsm: leveled or tiered (default: leveled)")
    String compaction;

    /** Hidden, for the measurement of what it buys: an event loop reads the disk on the loop. */
    @Option(
            names = "--async-disk-reads",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            hidden = true,
            description = "event loops read a disk store off the loop (default: on)")
    boolean asyncDiskReads = true;

    /** Whether event loops read a disk store through getAsync (off only to measure the loss). */
    public boolean asyncDiskReads() {
        return asyncDiskReads;
    }

    /** map, lsm or btree; another name is a bad argument. */
    public String kind(CommandSpec spec) {
        String kind = store.trim().toLowerCase(Locale.ROOT);
        if (!List.of("map", "lsm", "btree").contains(kind)) {
            throw bad(spec, "--store must be map, lsm or btree, got '" + store + "'");
        }
        return kind;
    }

    /** True for {@code --store lsm}. */
    public boolean isLsm(CommandSpec spec) {
        return kind(spec).equals("lsm");
    }

    /** True for a store on disk of its own: {@code --store lsm} or {@code --store btree}. */
    public boolean isDisk(CommandSpec spec) {
        return !kind(spec).equals("map");
    }

    /**
     * The B+tree store's options under {@code --store btree}, or null; a flag that does not apply
     * to the store chosen is a bad argument that names it.
     *
     * @param spec the command, for its errors and to tell which flags were given
     * @param wal the log's flags: {@code --data-dir}, {@code --fsync}, {@code --fsync-interval}
     * @param mapFlag the flag that names a map ({@code --map}) if the command has one, else null
     */
    public BTreeOptions toBTreeOptions(CommandSpec spec, WalCliOptions wal, String mapFlag) {
        var parsed = spec.commandLine().getParseResult();
        if (!kind(spec).equals("btree")) {
            for (String flag : BTREE_ONLY) {
                if (parsed.hasMatchedOption(flag)) {
                    throw bad(spec, flag + " applies only to --store btree");
                }
            }
            return null;
        }
        Path dataDir = diskDir(spec, wal, mapFlag, "btree");
        for (String flag : LSM_ONLY) {
            if (parsed.hasMatchedOption(flag)) {
                throw bad(spec, flag + " applies only to --store lsm");
            }
        }
        try {
            BTreeOptions options =
                    BTreeOptions.defaults(dataDir)
                            .withFsync(FsyncPolicy.parse(wal.fsync))
                            .withFsyncInterval(Durations.parsePositive(wal.fsyncInterval));
            if (pageSize != null) {
                long bytes = size("--page-size", pageSize);
                if (bytes > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(
                            "--page-size: " + pageSize + " is too large");
                }
                options = options.withPageSize((int) bytes);
            }
            if (bufferPool != null) {
                options = options.withBufferPoolBytes(size("--buffer-pool", bufferPool));
            }
            if (checkpointSize != null) {
                options = options.withCheckpointLogBytes(size("--checkpoint-size", checkpointSize));
            }
            return options;
        } catch (IllegalArgumentException e) {
            throw bad(spec, e.getMessage());
        }
    }

    /** The data directory of a disk store, after the checks every disk store shares. */
    private Path diskDir(CommandSpec spec, WalCliOptions wal, String mapFlag, String kind) {
        var parsed = spec.commandLine().getParseResult();
        Path dataDir = wal.dataDir(spec);
        if (dataDir == null) {
            throw bad(spec, "--store " + kind + " keeps its data on disk: give it --data-dir DIR");
        }
        if (mapFlag != null && parsed.hasMatchedOption(mapFlag)) {
            throw bad(
                    spec,
                    mapFlag
                            + " names a map; --store "
                            + kind
                            + " serves no map (drop one of them)");
        }
        for (String flag : WAL_ONLY) {
            if (parsed.hasMatchedOption(flag)) {
                throw bad(
                        spec,
                        flag
                                + " applies to the map's write-ahead log; --store "
                                + kind
                                + " takes only --fsync and --fsync-interval for its log");
            }
        }
        return dataDir;
    }

    /**
     * The LSM store's options under {@code --store lsm}, or null under {@code --store map}; a flag
     * that does not apply to the store chosen is a bad argument that names it.
     *
     * @param spec the command, for its errors and to tell which flags were given
     * @param wal the log's flags: {@code --data-dir}, {@code --fsync}, {@code --fsync-interval}
     * @param mapFlag the flag that names a map ({@code --map}) if the command has one, else null
     */
    public LsmOptions toLsmOptions(CommandSpec spec, WalCliOptions wal, String mapFlag) {
        var parsed = spec.commandLine().getParseResult();
        if (!isLsm(spec)) {
            for (String flag : LSM_ONLY) {
                if (parsed.hasMatchedOption(flag)) {
                    throw bad(spec, flag + " applies only to --store lsm");
                }
            }
            return null;
        }
        Path dataDir = diskDir(spec, wal, mapFlag, "lsm");
        for (String flag : BTREE_ONLY) {
            if (parsed.hasMatchedOption(flag)) {
                throw bad(spec, flag + " applies only to --store btree");
            }
        }
        try {
            LsmOptions options =
                    LsmOptions.defaults(dataDir)
                            .withFsync(FsyncPolicy.parse(wal.fsync))
                            .withFsyncInterval(Durations.parsePositive(wal.fsyncInterval));
            if (memtableSize != null) {
                options = options.withMemtableBytes(size("--memtable-size", memtableSize));
            }
            if (blockCache != null) {
                options = options.withBlockCacheBytes(size("--block-cache", blockCache));
            }
            if (compaction != null) {
                options = options.withCompaction(compactionStyle(compaction));
            }
            return options;
        } catch (IllegalArgumentException e) {
            throw bad(spec, e.getMessage());
        }
    }

    private static long size(String flag, String text) {
        try {
            return ByteSizes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": " + e.getMessage(), e);
        }
    }

    private static CompactionStyle compactionStyle(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "leveled" -> CompactionStyle.LEVELED;
            case "tiered" -> CompactionStyle.TIERED;
            default ->
                    throw new IllegalArgumentException(
                            "--compaction must be leveled or tiered, got '" + text + "'");
        };
    }

    private static picocli.CommandLine.ParameterException bad(CommandSpec spec, String message) {
        return Cli.usage(spec, message);
    }
}
