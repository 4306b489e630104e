package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables that compaction removed are closed as soon as no read that began before their removal is
 * still running: each holds its index, its bloom filter, a file descriptor and (deleted but open)
 * its disk space, so holding them for a fixed time let them pile up under a long run of
 * compactions, past a small heap. And a scan that began before keeps reading them to its end.
 */
class RetiredTablesTest {

    private static final LsmTuning SMALL =
            LsmTuning.DEFAULTS.withSizes(64 << 10, 256 << 10); // many small tables, many merges

    @Test
    void removedTablesAreClosedOnceNoReadUsesThem(@TempDir Path dir) throws Exception {
        try (LsmStore store = LsmStore.open(options(dir))) {
            write(store, 0, 6_000);
            assertThat(store.stats().compactions()).isPositive();
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(
                            () ->
                                    assertThat(openDeletedTables(dir))
                                            .as("tables deleted from the dir but still open")
                                            .isEmpty());
        }
    }

    @Test
    void aScanKeepsReadingTablesCompactedAwayUnderIt(@TempDir Path dir) throws Exception {
        try (LsmStore store = LsmStore.open(options(dir))) {
            write(store, 0, 3_000);
            List<String> before = tableFiles(dir);
            List<ByteArrayWrapper> seen = new ArrayList<>();
            store.forEach(
                    (k, v) -> {
                        if (seen.isEmpty()) {
                            // Rewrite everything until every table the scan started on is gone.
                            for (int round = 0; round < 20 && !gone(dir, before); round++) {
                                write(store, 0, 3_000);
                            }
                        }
                        seen.add(k);
                    });
            assertThat(gone(dir, before)).as("the scan's tables were compacted away").isTrue();
            assertThat(seen).hasSizeGreaterThanOrEqualTo(3_000);
        }
    }

    private static LsmOptions options(Path dir) {
        return LsmOptions.defaults(dir)
                .withFsync(FsyncPolicy.NEVER)
                .withMemtableBytes(LsmOptions.MIN_MEMTABLE_BYTES)
                .withTuning(SMALL);
    }

    private static void write(LsmStore store, int from, int count) {
        byte[] value = new byte[200];
        for (int i = from; i < from + count; i++) {
            store.put(
                    new ByteArrayWrapper(
                            String.format("k%06d", i).getBytes(StandardCharsets.US_ASCII)),
                    new ByteArrayWrapper(value));
        }
    }

    private static List<String> tableFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".sst"))
                    .toList();
        }
    }

    private static boolean gone(Path dir, List<String> tables) {
        try {
            List<String> now = tableFiles(dir);
            return tables.stream().noneMatch(now::contains);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** This process's descriptors open on deleted tables of {@code dir} (Linux's /proc). */
    private static List<String> openDeletedTables(Path dir) throws IOException {
        List<String> open = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(dir.toString()) && target.endsWith(".sst (deleted)")) {
                        open.add(target);
                    }
                } catch (IOException e) {
                    // closed since the listing
                }
            }
        }
        return open;
    }
}
