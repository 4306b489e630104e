package dbf0.kv.storage.lsm;

import static dbf0.kv.storage.lsm.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers while writers flush and compact: a key once written never reads as absent, and never as
 * older than a version the reader saw before (a flush or compaction that swapped tables under a
 * reader would show one or the other).
 */
class LsmConcurrencyTest {

    @TempDir Path dir;

    static final int KEYS = 200;

    @Test
    void readersNeverSeeAKeyVanishOrGoBackInTime() throws Exception {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLongArray written = new AtomicLongArray(KEYS);
        try (LsmStore store = LsmStore.open(LsmStoreTest.small(dir, CompactionStyle.LEVELED))) {
            for (int k = 0; k < KEYS; k++) {
                store.put(key(k), value(0, 300));
            }
            Thread writer =
                    new Thread(
                            () -> {
                                for (long version = 1; version <= 60; version++) {
                                    for (int k = 0; k < KEYS; k++) {
                                        store.put(key(k), value(version, 300));
                                        written.set(k, version);
                                    }
                                }
                                done.set(true);
                            });
            List<Thread> readers =
                    List.of(
                            reader(store, done, problems, false),
                            reader(store, done, problems, true));
            writer.start();
            readers.forEach(Thread::start);
            writer.join();
            for (Thread r : readers) {
                r.join();
            }
            assertThat(problems).isEmpty();
            assertThat(store.stats().compactions()).isPositive();
            for (int k = 0; k < KEYS; k++) {
                assertThat(version(store.get(key(k)))).isEqualTo(60);
            }
        }
    }

    private static Thread reader(
            LsmStore store, AtomicBoolean done, Queue<String> problems, boolean async) {
        return new Thread(
                () -> {
                    long[] seen = new long[KEYS];
                    int k = 0;
                    while (!done.get() && problems.isEmpty()) {
                        ByteArrayWrapper v;
                        try {
                            v = async ? store.getAsync(key(k)).get() : store.get(key(k));
                        } catch (Exception e) {
                            problems.add(e.toString());
                            return;
                        }
                        if (v == null) {
                            problems.add("key " + k + " vanished");
                        } else if (version(v) < seen[k]) {
                            problems.add(
                                    "key "
                                            + k
                                            + " went back from "
                                            + seen[k]
                                            + " to "
                                            + version(v));
                        } else {
                            seen[k] = version(v);
                        }
                        k = (k + 7) % KEYS;
                    }
                });
    }

    static ByteArrayWrapper key(int k) {
        return b(String.format("key%04d", k));
    }

    static ByteArrayWrapper value(long version, int size) {
        return new ByteArrayWrapper(ByteBuffer.allocate(size).putLong(version).array());
    }

    static long version(ByteArrayWrapper v) {
        return ByteBuffer.wrap(v.getArray()).getLong();
    }
}
