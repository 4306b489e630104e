package dbf0.kv.storage.btree;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Run in a child JVM with a small heap by {@link BTreeMoreThanHeapTest}: puts {@code mebibytes} of
 * 1 KiB values under keys in a scattered order, overwrites every tenth key and deletes every
 * twentieth, closes, reopens and checks every 97th key and a scan. Prints {@code RESULT ok=...
 * maxHeap=... userBytes=... diskBytes=... evictions=...} for the test to read; a wrong value ends
 * it with exit 1.
 *
 * <p>Arguments: data dir, mebibytes, buffer pool bytes.
 */
public final class BTreeMoreThanHeapMain {

    private BTreeMoreThanHeapMain() {}

    static ByteArrayWrapper key(long i) {
        return new ByteArrayWrapper(String.format("key%012d", i).getBytes());
    }

    /** 1 KiB, made from the key's number and its version, so a check needs no memory. */
    static ByteArrayWrapper value(long i, int version) {
        byte[] v = new byte[1024];
        Arrays.fill(v, (byte) (i * 31 + version));
        v[0] = (byte) version;
        return new ByteArrayWrapper(v);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long keys = Long.parseLong(args[1]) * 1024;
        long pool = Long.parseLong(args[2]);
        BTreeOptions options =
                BTreeOptions.defaults(dir).withBufferPoolBytes(pool).withFsync(FsyncPolicy.NEVER);
        long step = 1_000_003L % keys == 0 ? 1 : 1_000_003L; // a stride coprime with most counts
        try (BTreeStore store = BTreeStore.open(options)) {
            for (long n = 0; n < keys; n++) {
                long i = (n * step) % keys;
                store.put(key(i), value(i, 0));
            }
            for (long i = 0; i < keys; i += 10) {
                store.put(key(i), value(i, 1));
            }
            for (long i = 5; i < keys; i += 20) {
                store.delete(key(i));
            }
        }
        long evictions;
        long pages;
        boolean ok = true;
        try (BTreeStore store = BTreeStore.open(options)) {
            for (long i = 0; i < keys; i += 97) {
                ByteArrayWrapper want = i % 20 == 5 ? null : value(i, i % 10 == 0 ? 1 : 0);
                ByteArrayWrapper got = store.get(key(i));
                if (!java.util.Objects.equals(want, got)) {
                    System.out.println("WRONG key " + i);
                    ok = false;
                }
            }
            List<KeyValue> scan = store.scan(key(0), null, 100);
            ok &= scan.size() == 100 && scan.get(0).key().equals(key(0));
            ok &= store.keyCount() == keys - (keys + 14) / 20;
            evictions = store.stats().evictions();
            pages = store.stats().pages();
        }
        System.out.printf(
                "RESULT ok=%s maxHeap=%d userBytes=%d diskBytes=%d evictions=%d%n",
                ok, Runtime.getRuntime().maxMemory(), keys * 1024, pages * 4096, evictions);
        System.exit(ok ? 0 : 1);
    }
}
