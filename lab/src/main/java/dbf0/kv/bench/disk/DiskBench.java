package dbf0.kv.bench.disk;

import dbf0.common.cli.Cli;
import dbf0.common.cli.CliPaths;
import dbf0.kv.storage.lsm.CompactionStyle;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dbf0 disk-bench}: the 2020 project's read-write benchmark, with its arguments, against an
 * embedded engine (see the package documentation for the parts).
 */
@Command(
        name = "disk-bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Runs the 2020 DBFromZero read-write benchmark against an engine in this JVM and"
                    + " prints one JSON line per interval to stdout (progress goes to stderr).",
            "Each line has the 2020 fields (counts in the interval; fileSize: bytes under DIR now):"
                + " nanoTime, put, delete, deleteFound, get, getFound, fileSize; then type, mix,"
                + " threads, fsync, compaction, seconds, ops_per_sec, latency of every operation"
                + " p50_us, p99_us, p999_us, max_us and per type put_p99_us, delete_p99_us,"
                + " get_p99_us (HdrHistogram, this interval); user_bytes, bytes_written and"
                + " write_amp (since the engine opened); live_bytes, space_amp (fileSize per live"
                + " key and value byte); blocks_read and read_amp (blocks read from disk per get or"
                + " delete, this interval); stall_ms; fsyncs and records_per_fsync. A figure an"
                + " engine lacks is null.",
            "Exit status: 0 done, 1 the engine failed, 2 bad arguments."
        },
        footer = {
            "",
            "MIX is a 2020 mix, put/delete/get in percent: PUT_HEAVY 90/5/5, GET_HEAVY 10/5/85,"
                    + " DELETE_HEAVY 45/45/10, BALANCED 33/33/34; or a RocksDB db_bench"
                    + " benchmark: fillseq (puts in key order), fillrandom (random puts),"
                    + " overwrite and readrandom (random puts, or gets, after writing every key"
                    + " once in order, not measured). db_bench presets ignore KNOWN_KEY_RATE.",
            "TYPE: lsm (dbf0's LSM store), rocksdb (RocksDB with the same memtable, block cache,"
                    + " 4 KiB blocks, 10-bit bloom filters, no compression and the same fsync"
                    + " policy), map (dbf0's ConcurrentHashMap with its write-ahead log: every"
                    + " value in the heap), sqlite (SQLite: a WITHOUT ROWID table in WAL mode),"
                    + " mvstore (H2's MVStore, a copy-on-write B-tree in Java), lmdb (LMDB, a"
                    + " copy-on-write B+tree in a memory map). The first line on stderr states the"
                    + " engine's settings, and what each fsync policy means for it. The type's own"
                    + " settings are the options below; map and lmdb read only the fsync ones.",
            "",
            "Examples:",
            "  the 2020 setting, 30 s:",
            "    dbf0 disk-bench /tmp/db 1000000 1024 PUT_HEAVY 0.5 2 30s lsm",
            "  the same through RocksDB, writing the lines to a file too:",
            "    dbf0 disk-bench /tmp/rdb 1000000 1024 PUT_HEAVY 0.5 2 PT30S rocksdb --out r.jsonl",
            "  db_bench's fillrandom with fsync on every write, 16 threads:",
            "    dbf0 disk-bench /tmp/db 1000000 1024 fillrandom 0 16 30s lsm --fsync always",
            "  SQLite with 8 KiB pages, so that a 1 KiB value stays on its leaf page:",
            "    dbf0 disk-bench /tmp/sq 1000000 1024 BALANCED 0.5 2 30s sqlite --page-size 8KiB"
        })
public final class DiskBench implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "DIR",
            description =
                    "The data directory (the 2020 benchmark's 'file'): the engine's files live"
                            + " here, created if missing (its parent must exist), reopened if"
                            + " there. Use one per type.")
    Path dataDir;

    @Parameters(index = "1", paramLabel = "KEY_SPACE", description = "Keys 0..KEY_SPACE-1.")
    long keySpace;

    @Parameters(index = "2", paramLabel = "VALUE_LENGTH", description = "Bytes of every value.")
    int valueLength;

    @Parameters(index = "3", paramLabel = "MIX", description = "The operations (see below).")
    String mix;

    @Parameters(
            index = "4",
            paramLabel = "KNOWN_KEY_RATE",
            description =
                    "Probability (0..1) that a get or delete uses one of the last 10,000 keys put.")
    double knownKeyRate;

    @Parameters(index = "5", paramLabel = "THREADS", description = "Benchmark threads.")
    int threads;

    @Parameters(
            index = "6",
            paramLabel = "DURATION",
            converter = Cli.DurationConverter.class,
            description = "How long to run: 30s, PT30S, 500ms.")
    Duration duration;

    @Parameters(
            index = "7",
            paramLabel = "TYPE",
            description = "lsm, rocksdb, map, btree, sqlite, mvstore or lmdb.")
    String type;

    @Option(
            names = "--interval",
            converter = Cli.DurationConverter.class,
            defaultValue = "10s",
            description = "Time between two JSON lines (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "Also append every JSON line to FILE.")
    Path out;

    @Option(
            names = "--fsync",
            defaultValue = "interval",
            description =
                    "When the write-ahead log is forced: always (every write waits for its"
                            + " fsync), interval, never (default: ${DEFAULT-VALUE}).")
    String fsync;

    @Option(
            names = "--fsync-interval",
            converter = Cli.DurationConverter.class,
            defaultValue = "100ms",
            description = "The period of the force under interval (default: ${DEFAULT-VALUE}).")
    Duration fsyncInterval;

    @Option(
            names = "--memtable-size",
            converter = ByteSize.class,
            defaultValue = "32MiB",
            description =
                    "lsm, rocksdb: memtable bytes before a flush (default: ${DEFAULT-VALUE}).")
    long memtableBytes;

    @Option(
            names = "--block-cache",
            converter = ByteSize.class,
            defaultValue = "64MiB",
            description =
                    "lsm, rocksdb: block cache bytes; btree: buffer pool; sqlite: page cache per"
                            + " connection; mvstore: page cache (default: ${DEFAULT-VALUE}).")
    long blockCacheBytes;

    @Option(
            names = "--compaction",
            defaultValue = "leveled",
            description =
                    "lsm, rocksdb: leveled or tiered (RocksDB's universal) (default:"
                            + " ${DEFAULT-VALUE}).")
    String compaction;

    @Option(
            names = "--page-size",
            converter = ByteSize.class,
            defaultValue = "4KiB",
            description =
                    "sqlite, btree: the page size of a new database, a power of two from 512"
                            + " (btree: 1KiB) to 64KiB (btree: 32KiB) (default: ${DEFAULT-VALUE},"
                            + " SQLite's own; a 1 KiB value spills to an overflow page below"
                            + " 8KiB).")
    long pageSize;

    public static void main(String[] args) {
        Cli.runAndExit(new DiskBench(), args);
    }

    /** The run the arguments describe; bad arguments are reported as such (exit status 2). */
    DiskBenchRun toRun() {
        Cli.require(spec, keySpace >= 1, "KEY_SPACE must be at least 1, got " + keySpace);
        Cli.require(
                spec,
                valueLength >= 0 && valueLength <= (1 << 20),
                "VALUE_LENGTH must be 0..1048576, got " + valueLength);
        Cli.require(
                spec,
                knownKeyRate >= 0 && knownKeyRate <= 1,
                "KNOWN_KEY_RATE must be between 0 and 1, got " + knownKeyRate);
        Cli.require(
                spec, threads >= 1 && threads <= 1024, "THREADS must be 1..1024, got " + threads);
        Cli.require(
                spec,
                pageSize >= 512 && pageSize <= 65536 && Long.bitCount(pageSize) == 1,
                "--page-size must be a power of two from 512 to 64KiB, got " + pageSize);
        Mix parsedMix = Cli.parameter(spec, () -> Mix.parse(mix));
        EngineType engine = Cli.parameter(spec, () -> EngineType.parse(type));
        Cli.require(
                spec,
                engine != EngineType.BTREE || (pageSize >= 1024 && pageSize <= 32768),
                "--page-size must be a power of two from 1KiB to 32KiB for btree, got " + pageSize);
        Cli.require(
                spec,
                engine != EngineType.BTREE || blockCacheBytes >= 16 * pageSize,
                "--block-cache (the btree's buffer pool) must hold at least 16 pages, got "
                        + blockCacheBytes);
        CliPaths.directory(spec, "DIR", dataDir);
        if (out != null) {
            CliPaths.file(spec, "--out", out);
        }
        FsyncPolicy policy = Cli.parameter(spec, () -> FsyncPolicy.parse(fsync));
        CompactionStyle style = Cli.parameter(spec, () -> compactionStyle(compaction));
        LsmOptions options =
                Cli.parameter(
                        spec,
                        () ->
                                LsmOptions.defaults(dataDir)
                                        .withMemtableBytes(memtableBytes)
                                        .withBlockCacheBytes(blockCacheBytes)
                                        .withFsync(policy)
                                        .withFsyncInterval(fsyncInterval)
                                        .withCompaction(style));
        return new DiskBenchRun(
                options,
                engine,
                (int) pageSize,
                keySpace,
                valueLength,
                parsedMix,
                knownKeyRate,
                threads,
                duration,
                interval);
    }

    static CompactionStyle compactionStyle(String text) {
        for (CompactionStyle s : CompactionStyle.values()) {
            if (s.name().equalsIgnoreCase(text.trim())) {
                return s;
            }
        }
        throw new IllegalArgumentException(
                "unknown compaction '" + text + "': use leveled or tiered");
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        DiskBenchRun run = toRun();
        if (!Files.isDirectory(dataDir)) {
            Files.createDirectory(dataDir); // only the last part: toRun checked that the parent is
        }
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter file =
                out == null
                        ? null
                        : new PrintWriter(
                                Files.newBufferedWriter(
                                        out,
                                        StandardCharsets.UTF_8,
                                        java.nio.file.StandardOpenOption.CREATE,
                                        java.nio.file.StandardOpenOption.APPEND));
        DiskBenchRun.Summary summary;
        try {
            summary =
                    run.run(
                            line -> {
                                stdout.println(line);
                                stdout.flush();
                                if (file != null) {
                                    file.println(line);
                                    file.flush();
                                }
                            },
                            err);
        } finally {
            if (file != null) {
                file.close();
            }
        }
        err.println(
                String.format(
                        Locale.ROOT,
                        "dbf0 disk-bench: %s %s: %,.0f ops/s over %.1f s",
                        type,
                        run.mix(),
                        summary.operations() / summary.seconds(),
                        summary.seconds()));
        err.flush();
        if (summary.failure() != null) {
            Cli.error(
                    spec,
                    "the " + type + " engine in " + dataDir + " failed: " + summary.failure());
            return Cli.EXIT_FAILURE;
        }
        return Cli.EXIT_OK;
    }
}
