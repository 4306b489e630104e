package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.SimulatedDirectory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts across a vacuum, at each of its steps in turn ({@link SimulatedDirectory}): the same
 * tree is built again for every cut point, its acknowledged writes partly in the file and partly
 * only in the log, then vacuumed while the power goes at the vacuum's n-th write, force, rename,
 * directory sync or delete, for n = 1, 2, ... until a vacuum ends before its cut. Reopened, the
 * store must hold every acknowledged write and no deleted key, and its file must be the old one or
 * the new one, nothing between.
 */
@Timeout(120)
class BTreeVacuumPowerLossTest {

    static final int KEYS = 300;

    static BTreeOptions options() {
        return BTreeOptions.defaults(Path.of("sim"))
                .withPageSize(1024)
                .withBufferPoolBytes(32 * 1024)
                .withCheckpointLogBytes(1 << 20)
                .withFsync(FsyncPolicy.ALWAYS);
    }

    /**
     * Builds the tree: every key put and a checkpoint at the reopen, then half deleted in the log.
     */
    static long build(SimulatedDirectory disk) throws Exception {
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(BTreeVacuumTest.key(i), BTreeVacuumTest.value(i, 0));
            }
        }
        long pages;
        try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
            pages = store.stats().pages();
        }
        return pages;
    }

    static void deleteHalf(BTreeStore store) {
        for (int i = 0; i < KEYS; i += 2) {
            store.delete(BTreeVacuumTest.key(i));
        }
    }

    @Test
    void aVacuumCutAnywhereLeavesTheOldFileOrTheNewAndLosesNothing() throws Exception {
        long newPages;
        long oldPages;
        {
            SimulatedDirectory disk = new SimulatedDirectory();
            oldPages = build(disk);
            try (BTreeStore store = BTreeStore.open(options(), disk.mount())) {
                deleteHalf(store);
                newPages = store.vacuum().pagesAfter();
            }
        }
        assertThat(newPages).isLessThan(oldPages);
        Map<String, Integer> where = new TreeMap<>();
        Map<Long, Integer> files = new TreeMap<>();
        int cut = 1;
        for (; cut < 10_000; cut++) {
            SimulatedDirectory disk = new SimulatedDirectory();
            build(disk);
            BTreeStore store = BTreeStore.open(options(), disk.mount());
            deleteHalf(store); // acknowledged: forced to the log, not yet in the file
            disk.cutAt(cut, new Random(cut), "btree-vacuum");
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread vacuum =
                    new Thread(
                            () -> {
                                try {
                                    store.vacuum();
                                } catch (Throwable e) { // the power went
                                    failed.set(e);
                                }
                            },
                            "btree-vacuum-test");
            vacuum.start();
            vacuum.join();
            store.close();
            String at = disk.cutWhere();
            boolean last = at == null; // the vacuum ended before its cut-th step: all were cut
            if (last) {
                assertThat(failed.get()).isNull();
                disk.powerCut(new Random(cut));
                at = "btree-vacuum ended";
            }
            where.merge(at.replaceAll("-test", ""), 1, Integer::sum);
            try (BTreeStore reopened = BTreeStore.open(options(), disk.mount())) {
                long pages = reopened.stats().pages();
                assertThat(pages).as("cut %d at %s", cut, at).isIn(oldPages, newPages);
                files.merge(pages, 1, Integer::sum);
                for (int i = 0; i < KEYS; i++) {
                    ByteArrayWrapper found = reopened.get(BTreeVacuumTest.key(i));
                    assertThat(found)
                            .as("cut %d at %s, key %d", cut, at, i)
                            .isEqualTo(i % 2 == 0 ? null : BTreeVacuumTest.value(i, 0));
                }
            }
            if (last) {
                break;
            }
        }
        System.out.printf(
                "btree vacuum power loss: %d cut points; cuts by step: %s; files after: %s%n",
                cut, where, files);
        assertThat(where.keySet())
                .contains(
                        "btree-vacuum WRITE",
                        "btree-vacuum FORCE",
                        "btree-vacuum RENAME",
                        "btree-vacuum SYNC_DIR");
        assertThat(files.keySet())
                .as("both outcomes met")
                .containsExactlyInAnyOrder(oldPages, newPages);
    }
}
