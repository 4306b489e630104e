package dbf0.kv.storage.lsm;

import static dbf0.kv.storage.lsm.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.storage.wal.CorruptWalException;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged files: what is cut and reported, and what refuses to start or to answer. */
class LsmFailureTest {

    @TempDir Path dir;

    private Path only(String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches(suffix))
                    .reduce(
                            (a, c) -> {
                                throw new AssertionError("two files match " + suffix);
                            })
                    .orElseThrow();
        }
    }

    @Test
    void aTornLogTailIsCutAndReported() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
        }
        // half a record: a length and part of a checksum, as a crash during an append leaves
        Files.write(only(".*\\.log"), new byte[] {0, 0, 0, 9, 1, 2}, StandardOpenOption.APPEND);
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThat(store.recovery().droppedLogBytes()).isEqualTo(6);
            assertThat(store.recovery().summary()).contains("torn tail of 6 bytes");
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            assertThat(store.get(b("b"))).isEqualTo(b("2"));
        }
    }

    @Test
    void aBadRecordInTheMiddleOfALogRefusesToStart() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
        }
        Path log = only(".*\\.log");
        byte[] bytes = Files.readAllBytes(log);
        bytes[9] ^= 1; // the first record's body: the second record is good
        Files.write(log, bytes);
        assertThatThrownBy(() -> LsmStore.open(LsmOptions.defaults(dir)))
                .isInstanceOf(CorruptWalException.class)
                .hasMessageContaining(log.getFileName().toString());
    }

    @Test
    void aCorruptBlockIsCaughtByItsChecksumNamingFileAndOffset() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("a"), b("1"));
        }
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThat(store.get(b("a"))).isEqualTo(b("1")); // in a table since the reopen
        }
        Path table = only(".*\\.sst");
        byte[] bytes = Files.readAllBytes(table);
        bytes[20] ^= 0x40; // inside the first data block's only entry
        Files.write(table, bytes);
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThatThrownBy(() -> store.get(b("a")))
                    .isInstanceOf(CorruptTableException.class)
                    .hasMessageContaining(table.getFileName().toString())
                    .hasMessageContaining("at offset 0")
                    .hasMessageContaining("checksum");
        }
    }

    @Test
    void aTornManifestEditIsCutAndReported() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("a"), b("1"));
        }
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("b"), b("2"));
        }
        Files.write(only("MANIFEST-.*"), new byte[] {0, 0, 1, 0, 7}, StandardOpenOption.APPEND);
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThat(store.recovery().manifestDroppedBytes()).isEqualTo(5);
            assertThat(store.recovery().summary()).contains("torn last edit of 5 bytes");
            assertThat(store.get(b("a"))).isEqualTo(b("1"));
            assertThat(store.get(b("b"))).isEqualTo(b("2"));
        }
    }

    @Test
    void clearIsKeptAcrossReopenAndFlushes() throws Exception {
        LsmOptions options = LsmStoreTest.small(dir, CompactionStyle.LEVELED);
        try (LsmStore store = LsmStore.open(options)) {
            for (int i = 0; i < 2000; i++) {
                store.put(b("k" + i), b("v" + i));
            }
            assertThat(store.stats().flushes()).isPositive();
            store.clear();
            assertThat(store.get(b("k5"))).isNull();
            store.put(b("after"), b("1"));
        }
        try (LsmStore store = LsmStore.open(options.withFsync(FsyncPolicy.ALWAYS))) {
            assertThat(store.get(b("k5"))).isNull();
            assertThat(store.scan(null, null, 10)).hasSize(1);
            for (int i = 0; i < 2000; i++) {
                store.put(b("x" + i), b("v" + i)); // more flushes, after the clear's own
            }
        }
        try (LsmStore store = LsmStore.open(options)) {
            assertThat(store.get(b("k5"))).isNull();
            assertThat(store.get(b("after"))).isEqualTo(b("1"));
            assertThat(store.size()).isEqualTo(2001);
        }
    }
}
