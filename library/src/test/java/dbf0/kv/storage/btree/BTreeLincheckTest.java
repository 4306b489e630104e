package dbf0.kv.storage.btree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.SimulatedDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's verdict on the tree's latching ({@link BTree}'s class comment): puts, gets, deletes
 * and scans from two threads, on a tree whose one leaf is nearly full, so that a put splits it (and
 * grows a root) while the other thread reads or writes. The model checker explores thread switches
 * inside the operations, at every latch, pin and shared field; the stress run lets the threads race
 * on two cores. Each outcome must match some order of the operations run one at a time.
 *
 * <p>The tree's every page access is instrumented, so the model checker is slow here: the default
 * bound (2 scenarios, 20 interleavings each) keeps the run near half a minute on a loaded 2-core
 * machine. {@code -Ddbf0.btree.lincheck.scenarios=10 -Ddbf0.btree.lincheck.interleavings=200}
 * searched for six minutes and found nothing.
 *
 * <p>Tagged {@code lincheck}: it runs in surefire's {@code lincheck} execution (pom.xml).
 */
@Tag("lincheck")
class BTreeLincheckTest {

    @Test
    void putsGetsDeletesAndScansAreLinearizableUnderTheModelChecker() {
        ModelCheckingOptions options =
                new ModelCheckingOptions()
                        .iterations(Integer.getInteger("dbf0.btree.lincheck.scenarios", 2))
                        .invocationsPerIteration(
                                Integer.getInteger("dbf0.btree.lincheck.interleavings", 20))
                        .threads(2)
                        .actorsPerThread(2)
                        .actorsBefore(1)
                        .actorsAfter(1);
        LincheckAssertionError failure =
                catchThrowableOfType(LincheckAssertionError.class, () -> options.check(Ops.class));
        assertThat(failure).as("lincheck's report").isNull();
    }

    @Test
    void andUnderStress() {
        StressOptions options =
                new StressOptions()
                        .iterations(Integer.getInteger("dbf0.btree.lincheck.scenarios", 2))
                        .invocationsPerIteration(50)
                        .threads(2)
                        .actorsPerThread(3);
        LincheckAssertionError failure =
                catchThrowableOfType(LincheckAssertionError.class, () -> options.check(Ops.class));
        assertThat(failure).as("lincheck's report").isNull();
    }

    /** The operations, on three keys and two values; public for lincheck's reflection. */
    @Param(name = "key", gen = IntGen.class, conf = "1:3")
    @Param(name = "value", gen = IntGen.class, conf = "1:2")
    public static class Ops {
        private final BTree tree;

        public Ops() {
            try {
                SimulatedDirectory disk = new SimulatedDirectory();
                TreeFile.Opened opened = TreeFile.open(disk.mount(), 1024);
                tree = new BTree(new BufferPool(opened.file(), 64 * 1024), opened.meta());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int i = 0; i < 12; i++) { // 12 cells of 74 bytes: 104 of 992 left
                tree.put(String.format("pad%02d", i).getBytes(), new byte[60]);
            }
        }

        private static byte[] key(int k) {
            return ("k" + k).getBytes();
        }

        /** 200 bytes: one of these overflows the padded leaf. */
        private static byte[] value(int v) {
            byte[] bytes = new byte[200];
            bytes[0] = (byte) v;
            return bytes;
        }

        @Operation
        public boolean put(@Param(name = "key") int key, @Param(name = "value") int value) {
            return tree.put(key(key), value(value));
        }

        @Operation
        public Integer get(@Param(name = "key") int key) {
            ByteArrayWrapper v = tree.get(key(key));
            return v == null ? null : (int) v.getArray()[0];
        }

        @Operation
        public boolean delete(@Param(name = "key") int key) {
            return tree.delete(key(key));
        }

        /** The keys from "k" on, in order. */
        @Operation
        public List<String> scan() {
            List<String> keys = new ArrayList<>();
            for (KeyValue kv : tree.scan("k".getBytes(), null, 10)) {
                keys.add(new String(kv.key().getArray()) + "=" + kv.value().getArray()[0]);
            }
            return keys;
        }
    }
}
