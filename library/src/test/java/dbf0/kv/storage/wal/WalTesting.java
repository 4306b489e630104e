package dbf0.kv.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.ForwardingStore;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Fixtures the WAL tests share. */
final class WalTesting {

    private WalTesting() {}

    static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    static WalOptions opts(FsyncPolicy policy) {
        return WalOptions.defaults(Path.of("unused")).withFsync(policy).withRewrite(0, 0);
    }

    static WalStore open(SimulatedDirectory disk, WalOptions options) throws IOException {
        return WalStore.open(new MapStore(new ConcurrentHashMap<>()), options, disk.mount());
    }

    static Map<ByteArrayWrapper, ByteArrayWrapper> contents(Store store) {
        Map<ByteArrayWrapper, ByteArrayWrapper> copy = new HashMap<>();
        store.forEach(copy::put);
        return copy;
    }

    /** A map whose puts and deletes take a little while. */
    static final class SlowApply extends ForwardingStore {
        @Override
        public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
            LockSupport.parkNanos(20_000);
            map.put(key, value);
        }

        @Override
        public boolean delete(ByteArrayWrapper key) {
            LockSupport.parkNanos(20_000);
            return map.delete(key);
        }
    }

    /**
     * The keys whose values differ between two maps, each as "key: a vs b" (a few, for the
     * message).
     */
    static List<String> differences(
            Map<ByteArrayWrapper, ByteArrayWrapper> a, Map<ByteArrayWrapper, ByteArrayWrapper> b) {
        Set<ByteArrayWrapper> keys = new HashSet<>(a.keySet());
        keys.addAll(b.keySet());
        List<String> found = new ArrayList<>();
        for (ByteArrayWrapper key : keys) {
            if (!Objects.equals(a.get(key), b.get(key))) {
                found.add(text(key) + ": " + text(a.get(key)) + " vs " + text(b.get(key)));
            }
        }
        return found.size() > 10 ? found.subList(0, 10) : found;
    }

    private static String text(ByteArrayWrapper bytes) {
        return bytes == null ? "absent" : new String(bytes.getArray(), StandardCharsets.UTF_8);
    }

    /**
     * {@code threads} threads each making {@code each} changes (mostly puts, some deletes) to
     * {@code keys} shared keys, and then more while {@code keepGoing} holds; returns when all are
     * done. With a {@code group} of 1 each change is a blocking put or delete (which flushes its
     * own write); with more, a thread submits that many, flushes once and then waits for them, as a
     * session does with a read's writes, so that one thread's flush writes others' records too.
     */
    static void runWriters(
            WalStore store, int threads, int each, int keys, int group, BooleanSupplier keepGoing)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            writers.add(
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        try {
                                            start.await();
                                            List<CompletableFuture<Boolean>> submitted =
                                                    new ArrayList<>();
                                            for (int i = 0;
                                                    i < each || keepGoing.getAsBoolean();
                                                    i++) {
                                                ByteArrayWrapper key =
                                                        b("key" + (i * 7 + id) % keys);
                                                if (group == 1) {
                                                    if (i % 10 == 9) {
                                                        store.delete(key);
                                                    } else {
                                                        store.put(key, b(id + "-" + i));
                                                    }
                                                    continue;
                                                }
                                                submitted.add(
                                                        i % 10 == 9
                                                                ? store.deleteAsync(key)
                                                                : store.putAsync(
                                                                        key, b(id + "-" + i)));
                                                if (submitted.size() == group) {
                                                    store.flush();
                                                    for (var write : submitted) {
                                                        write.get(10, TimeUnit.SECONDS);
                                                    }
                                                    submitted.clear();
                                                }
                                            }
                                            store.flush();
                                            for (var write : submitted) {
                                                write.get(10, TimeUnit.SECONDS);
                                            }
                                        } catch (Throwable e) {
                                            failure.compareAndSet(null, e);
                                        }
                                    }));
        }
        start.countDown();
        for (Thread w : writers) {
            w.join();
        }
        assertThat(failure.get()).isNull();
    }
}
