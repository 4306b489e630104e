package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.SimulatedDirectory;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The tree against a TreeMap, one thread: random puts (short values in the leaf, long ones in
 * overflow pages), deletes, gets, scans from random keys with random limits, clears, and
 * checkpoints after which the tree is opened again from its file alone. Small pages (1 KiB) and a
 * pool of a few frames, so that a few hundred keys split leaves and inner pages, grow the root, and
 * evict pages that must be read back.
 */
class BTreeModelTest {

    /** An open tree on a simulated disk, with what it needs to checkpoint and reopen. */
    static final class Harness {
        final SimulatedDirectory disk = new SimulatedDirectory();
        WalDirectory dir;
        BTree tree;
        WalFile doubleWrite;
        final int pageSize;
        final long poolBytes;

        Harness(int pageSize, long poolBytes) throws IOException {
            this.pageSize = pageSize;
            this.poolBytes = poolBytes;
            open();
        }

        void open() throws IOException {
            dir = disk.mount();
            DoubleWrite.recover(dir);
            TreeFile.Opened opened = TreeFile.open(dir, pageSize);
            tree = new BTree(new BufferPool(opened.file(), poolBytes), opened.meta());
            doubleWrite = dir.open(DoubleWrite.NAME);
        }

        void checkpoint() throws IOException {
            Checkpoint.write(Checkpoint.take(tree, 1), tree.pool, doubleWrite);
        }

        void reopen() throws IOException {
            checkpoint();
            tree.pool.file().close();
            doubleWrite.close();
            open();
        }
    }

    @Provide
    Arbitrary<int[]> operations() {
        return Arbitraries.integers()
                .between(0, Integer.MAX_VALUE)
                .array(int[].class)
                .ofMaxSize(600);
    }

    @Property(tries = 60)
    void theTreeAnswersAsATreeMapDoes(@ForAll("operations") int[] ops) throws IOException {
        Harness h = new Harness(1024, 16 * 1024);
        TreeMap<ByteArrayWrapper, ByteArrayWrapper> model = new TreeMap<>();
        for (int op : ops) {
            ByteArrayWrapper key = key(op % 400);
            int kind = (op / 400) % 100;
            if (kind < 55) {
                byte[] value = new byte[kind < 5 ? 1000 + (op % 3000) : (op / 40000) % 120];
                Arrays.fill(value, (byte) op);
                ByteArrayWrapper v = new ByteArrayWrapper(value);
                assertThat(h.tree.put(key.getArray(), value)).isEqualTo(model.put(key, v) != null);
            } else if (kind < 75) {
                assertThat(h.tree.delete(key.getArray())).isEqualTo(model.remove(key) != null);
            } else if (kind < 88) {
                assertThat(h.tree.get(key.getArray())).isEqualTo(model.get(key));
            } else if (kind < 97) {
                int limit = 1 + (op / 40000) % 50;
                ByteArrayWrapper to = (op & 1) == 0 ? null : key(op % 400 + 60);
                assertThat(h.tree.scan(key.getArray(), to == null ? null : to.getArray(), limit))
                        .isEqualTo(expectedScan(model, key, to, limit));
            } else if (kind < 99) {
                h.reopen();
            } else if ((op & 7) == 0) {
                h.tree.clear();
                model.clear();
            }
            assertThat(h.tree.keys.get()).isEqualTo(model.size());
        }
        h.reopen();
        assertThat(h.tree.scan(null, null, Integer.MAX_VALUE))
                .isEqualTo(expectedScan(model, null, null, Integer.MAX_VALUE));
        assertThat(h.tree.keys.get()).isEqualTo(model.size());
    }

    /** A longer run from a fixed seed that must reach a root of level 2 and evict pages. */
    @net.jqwik.api.Example
    void aLongRunGrowsTheTreeAndEvicts() throws IOException {
        Harness h = new Harness(1024, 16 * 1024);
        TreeMap<ByteArrayWrapper, ByteArrayWrapper> model = new TreeMap<>();
        java.util.Random random = new java.util.Random(5);
        int maxLevel = 0;
        for (int i = 0; i < 20_000; i++) {
            ByteArrayWrapper key = key(random.nextInt(3000));
            if (random.nextInt(4) == 0) {
                assertThat(h.tree.delete(key.getArray())).isEqualTo(model.remove(key) != null);
            } else {
                byte[] value = new byte[random.nextInt(20) == 0 ? 2500 : random.nextInt(80)];
                random.nextBytes(value);
                h.tree.put(key.getArray(), value);
                model.put(key, new ByteArrayWrapper(value));
            }
            if (i % 2000 == 1999) {
                maxLevel = Math.max(maxLevel, h.tree.rootLevel);
                h.reopen();
            }
        }
        assertThat(maxLevel).isGreaterThanOrEqualTo(2);
        for (int i = 0; i < 3000; i++) {
            assertThat(h.tree.get(key(i).getArray())).isEqualTo(model.get(key(i)));
        }
        assertThat(h.tree.pool.counters()[2]).as("evictions").isPositive();
        assertThat(h.tree.scan(null, null, Integer.MAX_VALUE))
                .isEqualTo(expectedScan(model, null, null, Integer.MAX_VALUE));
    }

    static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(String.format("key-%05d", i).getBytes());
    }

    static List<KeyValue> expectedScan(
            TreeMap<ByteArrayWrapper, ByteArrayWrapper> model,
            ByteArrayWrapper from,
            ByteArrayWrapper to,
            int limit) {
        Map<ByteArrayWrapper, ByteArrayWrapper> range =
                from == null ? model : model.tailMap(from, true);
        List<KeyValue> out = new ArrayList<>();
        for (var e : range.entrySet()) {
            if (out.size() >= limit || (to != null && e.getKey().compareTo(to) >= 0)) {
                break;
            }
            out.add(new KeyValue(e.getKey(), e.getValue()));
        }
        return out;
    }
}
