package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteSizes;
import dbf0.common.cli.Cli;
import dbf0.kv.bench.Benchmark;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.btree.BTreeOptions;
import dbf0.kv.storage.lsm.CompactionStyle;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --store map|lsm} and the LSM store's flags on {@code server} and {@code bench}. */
class StoreFlagsTest {

    private static ServerOptions serve(String... args) {
        ServeCommand command = new ServeCommand();
        Cli.commandLine(command).parseArgs(args);
        return command.serverOptions();
    }

    private static void refused(String message, String... args) {
        assertThatThrownBy(() -> serve(args))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining(message);
    }

    @Test
    void lsmTakesItsSizesStyleAndTheLogsFsync() {
        ServerOptions options =
                serve(
                        "--store",
                        "lsm",
                        "--data-dir",
                        "d",
                        "--memtable-size",
                        "1m",
                        "--block-cache",
                        "512k",
                        "--compaction",
                        "tiered",
                        "--fsync",
                        "interval",
                        "--fsync-interval",
                        "50ms");
        LsmOptions lsm = options.lsm();
        assertThat(lsm.dataDir()).isEqualTo(Path.of("d"));
        assertThat(lsm.memtableBytes()).isEqualTo(1L << 20);
        assertThat(lsm.blockCacheBytes()).isEqualTo(512L << 10);
        assertThat(lsm.compaction()).isEqualTo(CompactionStyle.TIERED);
        assertThat(lsm.fsync()).isEqualTo(FsyncPolicy.INTERVAL);
        assertThat(lsm.fsyncInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(options.durability()).isNull(); // the store keeps its own log
        assertThat(options.asyncDiskReads()).isTrue();
        assertThat(serve("--store", "lsm", "--data-dir", "d").lsm())
                .isEqualTo(LsmOptions.defaults(Path.of("d")));
        assertThat(
                        serve("--store", "lsm", "--data-dir", "d", "--no-async-disk-reads")
                                .asyncDiskReads())
                .isFalse();
    }

    @Test
    void theMapStaysTheDefaultWithItsLog() {
        ServerOptions options = serve("--data-dir", "d", "--fsync", "never");
        assertThat(options.lsm()).isNull();
        assertThat(options.durability().fsync()).isEqualTo(FsyncPolicy.NEVER);
        assertThat(serve("--store", "map").durability()).isNull();
    }

    @Test
    void badCombinationsAreUsageErrorsThatSayWhy() {
        refused("--data-dir", "--store", "lsm");
        refused("--map", "--store", "lsm", "--data-dir", "d", "--map", "skiplist");
        refused("--rewrite-growth", "--store", "lsm", "--data-dir", "d", "--rewrite-growth", "3");
        refused("--commit-wait-us", "--store", "lsm", "--data-dir", "d", "--commit-wait-us", "9");
        refused("applies only to --store lsm", "--memtable-size", "64m");
        refused("applies only to --store lsm", "--data-dir", "d", "--compaction", "tiered");
        refused("--store must be map, lsm or btree", "--store", "rocks");
        refused("not a size", "--store", "lsm", "--data-dir", "d", "--block-cache", "12q");
        refused(
                "memtable size must be at least",
                "--store",
                "lsm",
                "--data-dir",
                "d",
                "--memtable-size",
                "1k");
        refused("leveled or tiered", "--store", "lsm", "--data-dir", "d", "--compaction", "x");
        refused("fsync", "--store", "lsm", "--data-dir", "d", "--fsync", "sometimes");
    }

    @Test
    void btreeTakesItsPageSizePoolAndTheLogsFsync() {
        ServerOptions options =
                serve(
                        "--store",
                        "btree",
                        "--data-dir",
                        "d",
                        "--page-size",
                        "8k",
                        "--buffer-pool",
                        "1m",
                        "--checkpoint-size",
                        "256k",
                        "--fsync",
                        "never");
        BTreeOptions btree = options.btree();
        assertThat(btree.dataDir()).isEqualTo(Path.of("d"));
        assertThat(btree.pageSize()).isEqualTo(8192);
        assertThat(btree.bufferPoolBytes()).isEqualTo(1L << 20);
        assertThat(btree.checkpointLogBytes()).isEqualTo(256L << 10);
        assertThat(btree.fsync()).isEqualTo(FsyncPolicy.NEVER);
        assertThat(options.lsm()).isNull();
        assertThat(options.durability()).isNull(); // the store keeps its own log
        assertThat(serve("--store", "btree", "--data-dir", "d").btree())
                .isEqualTo(BTreeOptions.defaults(Path.of("d")));
        refused("--data-dir", "--store", "btree");
        refused("applies only to --store btree", "--page-size", "8k");
        refused("applies only to --store btree", "--checkpoint-size", "1m");
        refused(
                "applies only to --store btree",
                "--store",
                "lsm",
                "--data-dir",
                "d",
                "--buffer-pool",
                "1m");
        refused(
                "applies only to --store lsm",
                "--store",
                "btree",
                "--data-dir",
                "d",
                "--memtable-size",
                "1m");
        refused("power of two", "--store", "btree", "--data-dir", "d", "--page-size", "3000");
        refused("at least 16 pages", "--store", "btree", "--data-dir", "d", "--buffer-pool", "16k");
        refused("--map", "--store", "btree", "--data-dir", "d", "--map", "skiplist");
    }

    @Test
    void benchRefusesLsmWithoutADirectoryOrWithConnect() {
        assertThat(bench("--store", "lsm")).contains("--data-dir");
        assertThat(bench("--store", "lsm", "--data-dir", "d", "--connect", "127.0.0.1:1"))
                .contains("--connect");
        assertThat(bench("--block-cache", "1m")).contains("applies only to --store lsm");
    }

    private static String bench(String... flags) {
        String[] args = new String[7 + flags.length];
        System.arraycopy(
                new String[] {"1", "1", "concurrent", "8", "8", "0.5", "1s"}, 0, args, 0, 7);
        System.arraycopy(flags, 0, args, 7, flags.length);
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Benchmark());
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).isEqualTo(2);
        return err.toString();
    }

    @Test
    void sizesTakeBytesOrAUnit() {
        assertThat(ByteSizes.parse("65536")).isEqualTo(65536);
        assertThat(ByteSizes.parse("512k")).isEqualTo(512L << 10);
        assertThat(ByteSizes.parse("64m")).isEqualTo(64L << 20);
        assertThat(ByteSizes.parse(" 64MiB ")).isEqualTo(64L << 20);
        assertThat(ByteSizes.parse("1G")).isEqualTo(1L << 30);
        assertThat(ByteSizes.parse("2gb")).isEqualTo(2L << 30);
        for (String bad : new String[] {"", "m", "1.5m", "-1", "64x", "99999999999999999999g"}) {
            assertThatThrownBy(() -> ByteSizes.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a size");
        }
    }
}
