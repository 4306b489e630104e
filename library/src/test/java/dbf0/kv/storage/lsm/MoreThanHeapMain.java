package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The child of {@link MoreThanHeapTest}: fills an LSM store with far more data than this JVM's heap
 * ({@code -Xmx}), closes it, opens it again and checks it. Every value is a function of its key's
 * number and version, so checking needs no memory of what was written.
 *
 * <ol>
 *   <li>Writes {@code n} keys of {@code valueBytes} each, in a scrambled order (a permutation of
 *       the numbers, so compaction merges overlapping ranges).
 *   <li>Overwrites every tenth key with a second version and deletes every seventeenth, again in
 *       scrambled order: reads must find the newest version across levels.
 *   <li>Closes the store, forces a GC and measures the heap, opens the store again (its memtable
 *       starts empty: what the heap gained is the tables' indexes and filters) and measures again.
 *   <li>Reads {@code samples} random keys and scans 1,000 keys from a random one, each checked.
 * </ol>
 *
 * <p>Prints one line, {@code RESULT key=value ...}, and exits 0; on a wrong answer it prints it and
 * exits 1. Arguments: dataDir totalMiB valueBytes memtable blockCache samples.
 */
public final class MoreThanHeapMain {

    private MoreThanHeapMain() {}

    /** Runs the experiment; see the class comment. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long totalBytes = Long.parseLong(args[1]) << 20;
        int valueBytes = Integer.parseInt(args[2]);
        LsmOptions options =
                LsmOptions.defaults(dir)
                        .withFsync(FsyncPolicy.NEVER) // memory is the point here, not durability
                        .withMemtableBytes(dbf0.common.ByteSizes.parse(args[3]))
                        .withBlockCacheBytes(dbf0.common.ByteSizes.parse(args[4]));
        int samples = Integer.parseInt(args[5]);
        int n = (int) (totalBytes / valueBytes);
        long step = stepFor(n);
        long baseline = heapAfterGc();
        long start = System.nanoTime();
        LsmStats written;
        try (LsmStore store = LsmStore.open(options)) {
            for (long i = 0; i < n; i++) {
                int k = (int) (i * step % n);
                store.put(key(k), value(k, 1, valueBytes));
            }
            for (long i = 0; i < n; i++) {
                int k = (int) (i * step % n);
                if (deleted(k)) {
                    store.delete(key(k));
                } else if (version(k) == 2) {
                    store.put(key(k), value(k, 2, valueBytes));
                }
            }
            written = store.stats();
        }
        double writeSeconds = (System.nanoTime() - start) / 1e9;
        long closed = heapAfterGc();
        start = System.nanoTime();
        String failure = null;
        long opened;
        LsmStats after;
        try (LsmStore store = LsmStore.open(options)) {
            quiesce(store);
            opened = heapAfterGc();
            SplittableRandom random = new SplittableRandom(n);
            for (int s = 0; s < samples && failure == null; s++) {
                failure = checkGet(store, random.nextInt(n), valueBytes);
            }
            if (failure == null) {
                failure = checkScan(store, random.nextInt(n), n, valueBytes);
            }
            after = store.stats();
        }
        double readSeconds = (System.nanoTime() - start) / 1e9;
        long maxHeap = Runtime.getRuntime().maxMemory();
        System.out.printf(
                Locale.ROOT,
                "RESULT keys=%d userBytes=%d maxHeap=%d diskBytes=%d dirBytes=%d flushes=%d"
                        + " compactions=%d tables=%s writeAmp=%.2f stallMs=%d writeSeconds=%.1f"
                        + " readSeconds=%.1f heapBaseline=%d heapClosed=%d heapOpened=%d"
                        + " peakRss=%d blocksRead=%d indexBytes=%d filterBytes=%d ok=%s%n",
                n,
                written.userBytesWritten(),
                maxHeap,
                after.diskBytes(),
                dirBytes(dir),
                written.flushes(),
                written.compactions(),
                after.tablesPerLevel().toString().replace(" ", ""),
                written.writeAmplification(),
                written.stallNanos() / 1_000_000,
                writeSeconds,
                readSeconds,
                baseline,
                closed,
                opened,
                peakRss(),
                after.blocksRead(),
                footers(dir)[0],
                footers(dir)[1],
                failure == null);
        if (failure != null) {
            System.out.println("WRONG " + failure);
            System.exit(1);
        }
    }

    /** A step coprime with {@code n}: i * step mod n visits every number below n once. */
    private static long stepFor(int n) {
        long step = 1_000_003;
        while (BigInteger.valueOf(step).gcd(BigInteger.valueOf(n)).intValue() != 1) {
            step += 2;
        }
        return step;
    }

    static boolean deleted(int k) {
        return k % 17 == 5;
    }

    static int version(int k) {
        return k % 10 == 3 ? 2 : 1;
    }

    static ByteArrayWrapper key(int k) {
        return new ByteArrayWrapper(String.format("k%010d", k).getBytes(StandardCharsets.US_ASCII));
    }

    static ByteArrayWrapper value(int k, int version, int bytes) {
        byte[] v = new byte[bytes];
        new SplittableRandom(k * 31L + version).nextBytes(v);
        return new ByteArrayWrapper(v);
    }

    private static String checkGet(LsmStore store, int k, int valueBytes) {
        ByteArrayWrapper found = store.get(key(k));
        ByteArrayWrapper expected = deleted(k) ? null : value(k, version(k), valueBytes);
        return java.util.Objects.equals(found, expected)
                ? null
                : "key " + k + ": found " + describe(found) + ", expected " + describe(expected);
    }

    /** A scan of 1,000 keys from key {@code from}: the live keys in order, each with its value. */
    private static String checkScan(LsmStore store, int from, int n, int valueBytes) {
        List<KeyValue> got = store.scan(key(from), null, 1000);
        int k = from;
        for (KeyValue kv : got) {
            while (k < n && deleted(k)) {
                k++;
            }
            if (k >= n || !kv.key().equals(key(k))) {
                return "scan from " + from + ": expected key " + k + ", got " + kv.key();
            }
            if (!kv.value().equals(value(k, version(k), valueBytes))) {
                return "scan from " + from + ": wrong value for key " + k;
            }
            k++;
        }
        int live = 0;
        for (int j = from; j < n && live < 1000; j++) {
            live += deleted(j) ? 0 : 1;
        }
        return got.size() == live
                ? null
                : "scan from " + from + ": " + got.size() + " keys, expected " + live;
    }

    private static String describe(ByteArrayWrapper v) {
        return v == null ? "absent" : v.length() + " bytes";
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Waits (a minute at most) until a second passes with no compaction finishing. */
    private static void quiesce(LsmStore store) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        long seen = -1;
        while (System.nanoTime() < deadline && store.stats().compactions() != seen) {
            seen = store.stats().compactions();
            Thread.sleep(1000);
        }
    }

    /**
     * The index and filter bytes of every table in {@code dir}, from their footers: what an open
     * store keeps in memory per table (the index as bytes, plus an int per block to find them).
     */
    private static long[] footers(Path dir) throws IOException {
        long[] sums = new long[2];
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (!f.getFileName().toString().endsWith(".sst")) {
                    continue;
                }
                try (var channel = java.nio.channels.FileChannel.open(f)) {
                    var footer = java.nio.ByteBuffer.allocate(TableFormat.FOOTER_BYTES);
                    channel.read(footer, channel.size() - TableFormat.FOOTER_BYTES);
                    footer.flip();
                    footer.getLong();
                    sums[0] += footer.getInt(); // index length
                    footer.getLong();
                    sums[1] += footer.getInt(); // filter length
                }
            }
        }
        return sums;
    }

    private static long dirBytes(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.mapToLong(
                            f -> {
                                try {
                                    return Files.size(f);
                                } catch (IOException e) {
                                    return 0;
                                }
                            })
                    .sum();
        }
    }

    /** The process's peak resident set (VmHWM), or -1 where /proc does not say. */
    private static long peakRss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }
}
