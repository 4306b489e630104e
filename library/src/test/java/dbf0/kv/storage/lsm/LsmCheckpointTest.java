package dbf0.kv.storage.lsm;

import static dbf0.kv.storage.lsm.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.LogPosition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store without a log of its own, as a replicated shard runs it: positions recorded with its
 * tables, checkpoints of them, and a restore from one.
 */
class LsmCheckpointTest {

    @TempDir Path dir;

    static LsmOptions logless(Path dir) {
        return LsmStoreTest.small(dir, CompactionStyle.LEVELED).withoutOwnLog();
    }

    static Map<ByteArrayWrapper, ByteArrayWrapper> contents(LsmStore store) {
        Map<ByteArrayWrapper, ByteArrayWrapper> all = new TreeMap<>();
        store.forEach(all::put);
        return all;
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Entry i of a made-up log: key k(i), a value of 200 bytes; marked at index i + 1. */
    static void entries(LsmStore store, int from, int to, String tag) throws IOException {
        for (int i = from; i < to; i++) {
            store.put(b("k" + i), b(tag + "-" + i + "-" + "x".repeat(200)));
            store.markApplied(new LogPosition(1, i + 1));
        }
    }

    @Test
    void withoutItsOwnLogOnlyTablesAreKeptAndTheManifestSaysUpToWhichEntry() throws Exception {
        try (LsmStore store = LsmStore.open(logless(dir))) {
            entries(store, 0, 2000, "v");
            assertThat(store.walStats()).isNull();
        }
        assertThat(names(dir)).noneMatch(n -> n.endsWith(".log"));
        try (LsmStore store = LsmStore.open(logless(dir))) {
            long at = store.applied().index();
            assertThat(at).isBetween(1L, 1999L); // the last memtable was never flushed
            assertThat(store.applied().term()).isEqualTo(1);
            // whole entries up to the mark and nothing after it: a replay starts at at + 1
            for (int i = 0; i < 2000; i++) {
                ByteArrayWrapper v = store.get(b("k" + i));
                assertThat(v != null).as("k" + i + " with the tables at " + at).isEqualTo(i < at);
            }
        }
    }

    @Test
    void aCheckpointIsADataDirectoryOfItsOwnThatCompactionLeavesAlone() throws Exception {
        Path ckpt = dir.resolve("ckpt");
        Map<ByteArrayWrapper, ByteArrayWrapper> then;
        try (LsmStore store = LsmStore.open(logless(dir.resolve("store")))) {
            entries(store, 0, 500, "old");
            store.clear(); // FLUSHALL in the middle: older cells gone
            store.markApplied(new LogPosition(1, 501));
            entries(store, 1000, 1600, "new");
            assertThat(store.delete(b("k1001"))).isTrue();
            store.markApplied(new LogPosition(1, 1601));
            then = contents(store);
            List<Path> files = store.checkpoint(ckpt, new LogPosition(2, 1602));
            assertThat(files.get(files.size() - 1).getFileName().toString()).isEqualTo("CURRENT");
            assertThat(files).allMatch(Files::exists);
            assertThat(store.applied()).isEqualTo(new LogPosition(2, 1602));
            assertThat(store.positionOf(ckpt)).isEqualTo(new LogPosition(2, 1602));
            entries(store, 0, 3000, "later"); // flushes and compactions delete the old tables
            assertThat(contents(store)).isNotEqualTo(then);
        }
        assertThat(then).hasSize(599).doesNotContainKey(b("k1")).doesNotContainKey(b("k1001"));
        Path copy = dir.resolve("copy");
        Files.createDirectories(copy);
        for (String name : names(ckpt)) {
            Files.copy(ckpt.resolve(name), copy.resolve(name));
        }
        try (LsmStore opened = LsmStore.open(LsmStoreTest.small(copy, CompactionStyle.LEVELED))) {
            assertThat(contents(opened)).isEqualTo(then);
            assertThat(opened.applied()).isEqualTo(new LogPosition(2, 1602));
        }
    }

    @Test
    void aRestoreReplacesTablesMemtablesAndSequenceNumbersWhole() throws Exception {
        Path ckpt = dir.resolve("ckpt");
        Map<ByteArrayWrapper, ByteArrayWrapper> then;
        try (LsmStore leader = LsmStore.open(logless(dir.resolve("leader")))) {
            entries(leader, 0, 800, "leader");
            leader.clear();
            leader.markApplied(new LogPosition(1, 801));
            entries(leader, 900, 1200, "leader");
            then = contents(leader);
            leader.checkpoint(ckpt, new LogPosition(1, 1201));
        }
        Path mine = dir.resolve("follower");
        try (LsmStore follower = LsmStore.open(logless(mine))) {
            // more writes than the leader's, so higher sequence numbers, and a later clear
            entries(follower, 0, 3000, "follower");
            entries(follower, 0, 3000, "again");
            follower.clear();
            follower.markApplied(new LogPosition(1, 3001));
            entries(follower, 5000, 5050, "unflushed");
            assertThat(follower.restore(ckpt)).isEqualTo(new LogPosition(1, 1201));
            assertThat(contents(follower)).isEqualTo(then);
            assertThat(follower.applied()).isEqualTo(new LogPosition(1, 1201));
            // writes after the restore are newer than every restored cell
            follower.put(b("k900"), b("after"));
            assertThat(follower.delete(b("k901"))).isTrue();
            follower.markApplied(new LogPosition(1, 1202));
            assertThat(follower.get(b("k900"))).isEqualTo(b("after"));
            assertThat(follower.get(b("k901"))).isNull();
            follower.checkpoint(
                    dir.resolve("again"), new LogPosition(1, 1202)); // flushed, and recorded
        }
        then.put(b("k900"), b("after"));
        then.remove(b("k901"));
        try (LsmStore reopened = LsmStore.open(logless(mine))) {
            assertThat(contents(reopened)).isEqualTo(then);
            assertThat(reopened.applied()).isEqualTo(new LogPosition(1, 1202));
        }
    }

    @Test
    void aDamagedCheckpointIsRefusedNamingItsFileAndTheStoreIsUnchanged() throws Exception {
        Path ckpt = dir.resolve("ckpt");
        try (LsmStore source = LsmStore.open(logless(dir.resolve("source")))) {
            entries(source, 0, 600, "v");
            source.checkpoint(ckpt, new LogPosition(1, 600));
        }
        try (LsmStore store = LsmStore.open(logless(dir.resolve("store")))) {
            entries(store, 0, 10, "mine");
            Map<ByteArrayWrapper, ByteArrayWrapper> mine = contents(store);

            String manifest = Files.readString(ckpt.resolve("CURRENT")).strip();
            byte[] good = Files.readAllBytes(ckpt.resolve(manifest));
            byte[] bad = good.clone();
            bad[bad.length - 1] ^= 1;
            Files.write(ckpt.resolve(manifest), bad);
            assertThatThrownBy(() -> store.restore(ckpt))
                    .isInstanceOf(CorruptTableException.class)
                    .hasMessageContaining(ckpt.resolve(manifest).toString())
                    .hasMessageContaining("CRC32C");
            Files.write(ckpt.resolve(manifest), good);

            String table = names(ckpt).stream().filter(n -> n.endsWith(".sst")).findFirst().get();
            Path moved = dir.resolve(table);
            Files.move(ckpt.resolve(table), moved);
            assertThatThrownBy(() -> store.restore(ckpt))
                    .hasMessageContaining(ckpt.resolve(table).toString())
                    .hasMessageContaining("missing");
            Files.move(moved, ckpt.resolve(table));

            Files.delete(ckpt.resolve("CURRENT"));
            assertThatThrownBy(() -> store.positionOf(ckpt))
                    .hasMessageContaining(ckpt.resolve("CURRENT").toString());
            assertThat(contents(store)).isEqualTo(mine);
        }
    }

    @Test
    void aStoreWithItsOwnLogHasNoPositions() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThatThrownBy(() -> store.markApplied(new LogPosition(1, 1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(store.applied()).isEqualTo(LogPosition.NONE);
        }
    }

    @Test
    void aDataDirWhereAStoreKeptItsOwnLogIsRefusedNamingTheLog() throws Exception {
        try (LsmStore store = LsmStore.open(LsmOptions.defaults(dir))) {
            store.put(b("k"), b("v"));
        }
        String log = names(dir).stream().filter(n -> n.endsWith(".log")).findFirst().orElseThrow();
        assertThatThrownBy(() -> LsmStore.open(logless(dir)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(log)
                .hasMessageContaining("a log of its own");
    }

    @Test
    void aPositionIsFormatTwoAndANewerFormatIsRefusedByNumber() {
        ManifestEdit edit =
                new ManifestEdit(List.of(), List.of(), -1, -1, -1, -1, new LogPosition(3, 258));
        assertThat(HexFormat.of().formatHex(edit.encode()))
                .isEqualTo("0802" + "07" + "0000000000000003" + "0000000000000102");
        assertThat(ManifestEdit.decode(ByteBuffer.wrap(edit.encode())).applied())
                .isEqualTo(new LogPosition(3, 258));
        assertThat(new ManifestEdit(List.of(), List.of(), 5, -1, -1, -1).encode())
                .isEqualTo(HexFormat.of().parseHex("030000000000000005")); // format 1, as before
        assertThatThrownBy(() -> ManifestEdit.decode(ByteBuffer.wrap(new byte[] {8, 3})))
                .hasMessageContaining("manifest format 3: written by a newer dbf0");
    }
}
