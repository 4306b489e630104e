package dbf0.kv.bench;

import com.google.gson.JsonObject;
import dbf0.common.ByteArrayWrapper;
import dbf0.common.ByteSizes;
import dbf0.common.cli.Cli;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.lsm.LsmStore;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Does a read that waits for the disk stall other clients? One connection GETs a few hot keys (in
 * the block cache) one at a time and records each GET's latency, while other connections on the
 * same event loops keep a window of GETs of cold keys (not cached) in flight. It runs twice over
 * the same data: reads off the loop ({@code getAsync}, the server's default) and on it (the hidden
 * {@code --no-async-disk-reads}), and prints one JSON line per run with the hot GETs' percentiles.
 *
 * <p>The store is the LSM store with a block cache smaller than its data ({@code --store lsm}), or
 * a store whose uncached reads sleep a fixed time ({@code --store sleeping}), which shows the
 * server's part alone, whatever the disk and the page cache do.
 *
 * <pre>java -cp target/dbf0.jar dbf0.kv.bench.DiskStallBench --store lsm --keys 300000</pre>
 */
@Command(
        name = "disk-stall",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description =
                "p50/p99/p999 of cached GETs on one connection while others read cold keys, with"
                        + " reads off the event loop and on it")
public final class DiskStallBench implements Callable<Integer> {

    @Option(names = "--store", description = "lsm or sleeping (default: ${DEFAULT-VALUE})")
    String store = "sleeping";

    @Option(names = "--data-dir", description = "lsm: where (default: a temporary directory)")
    Path dataDir;

    @Option(names = "--keys", description = "keys loaded (default: ${DEFAULT-VALUE})")
    int keys = 200_000;

    @Option(names = "--value-bytes", description = "bytes per value (default: ${DEFAULT-VALUE})")
    int valueBytes = 1024;

    @Option(names = "--block-cache", description = "lsm: block cache (default: ${DEFAULT-VALUE})")
    String blockCache = "4m";

    @Option(names = "--memtable-size", description = "lsm (default: ${DEFAULT-VALUE})")
    String memtableSize = "1m";

    @Option(
            names = "--read-micros",
            description = "sleeping: an uncached read's time (default: ${DEFAULT-VALUE})")
    long readMicros = 500;

    @Option(
            names = "--queue-depth",
            description = "sleeping: reads served at once (default: ${DEFAULT-VALUE})")
    int queueDepth = 4;

    @Option(names = "--loops", description = "server event loops (default: ${DEFAULT-VALUE})")
    int loops = 1;

    @Option(
            names = "--cold-connections",
            description = "connections reading cold keys (default: ${DEFAULT-VALUE})")
    int coldConnections = 2;

    @Option(
            names = "--cold-window",
            description = "cold GETs in flight per connection (default: ${DEFAULT-VALUE})")
    int coldWindow = 8;

    @Option(names = "--hot-keys", description = "keys the hot client reads (default: 64)")
    int hotKeys = 64;

    @Option(names = "--seconds", description = "measured seconds per run (default: 5)")
    int seconds = 5;

    @Option(names = "--warmup-seconds", description = "unmeasured seconds first (default: 1)")
    int warmupSeconds = 1;

    public static void main(String[] args) {
        Cli.runAndExit(new DiskStallBench(), args);
    }

    private static ByteArrayWrapper key(int i) {
        return new ByteArrayWrapper(String.format("key%010d", i).getBytes(StandardCharsets.UTF_8));
    }

    private ByteArrayWrapper value(int i) {
        byte[] v = new byte[valueBytes];
        ThreadLocalRandom.current().nextBytes(v);
        v[0] = (byte) i;
        return new ByteArrayWrapper(v);
    }

    @Override
    public Integer call() throws Exception {
        boolean lsm = store.equals("lsm");
        if (!lsm && !store.equals("sleeping")) {
            throw new IllegalArgumentException("--store must be lsm or sleeping, got " + store);
        }
        Path dir = dataDir != null ? dataDir : lsm ? Files.createTempDirectory("disk-stall") : null;
        LsmOptions lsmOptions =
                lsm
                        ? LsmOptions.defaults(dir)
                                .withFsync(FsyncPolicy.NEVER)
                                .withMemtableBytes(ByteSizes.parse(memtableSize))
                                .withBlockCacheBytes(ByteSizes.parse(blockCache))
                        : null;
        SleepingDiskStore sleeping =
                lsm ? null : new SleepingDiskStore(readMicros * 1000, queueDepth);
        if (lsm) {
            try (LsmStore loading = LsmStore.open(lsmOptions)) {
                load(loading);
            }
        } else {
            load(sleeping);
            for (int i = 0; i < hotKeys; i++) {
                sleeping.markHot(key(i));
            }
        }
        try {
            for (boolean offLoop : new boolean[] {true, false}) {
                ServerOptions options =
                        ServerOptions.defaults()
                                .withModel(ServerModel.NIO)
                                .withThreads(loops)
                                .withAsyncDiskReads(offLoop);
                try (KeyValueServer server =
                        lsm
                                ? new KeyValueServer(options.withLsm(lsmOptions))
                                : new KeyValueServer(options, sleeping)) {
                    server.start();
                    JsonObject json = measure(server);
                    json.addProperty("store", store);
                    json.addProperty("reads", offLoop ? "off-loop" : "on-loop");
                    System.out.println(json);
                    System.out.flush();
                }
            }
        } finally {
            if (sleeping != null) {
                sleeping.close();
            }
        }
        return 0;
    }

    private void load(dbf0.kv.storage.Store target) {
        List<CompletableFuture<Boolean>> inFlight = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            inFlight.add(target.putAsync(key(i), value(i)));
            if (inFlight.size() == 1024 || i == keys - 1) {
                target.flush();
                inFlight.forEach(CompletableFuture::join);
                inFlight.clear();
            }
        }
    }

    /** The hot client's latencies while the cold connections keep the disk busy. */
    private JsonObject measure(KeyValueServer server) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder coldGets = new LongAdder();
        List<Thread> cold = new ArrayList<>();
        // the cold connections first: with round-robin accepts they share the hot one's loop
        for (int c = 0; c < coldConnections; c++) {
            KeyValueClient client = KeyValueClient.connect(server.getLocalAddress());
            cold.add(
                    Thread.ofPlatform()
                            .name("cold-" + c)
                            .start(() -> readCold(client, stop, coldGets)));
        }
        Histogram hot = new Histogram(60_000_000_000L, 3);
        try (KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            for (int i = 0; i < hotKeys; i++) {
                client.get(key(i)); // into the block cache
            }
            long warmEnd = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            long end = warmEnd + seconds * 1_000_000_000L;
            long coldAtStart = -1;
            int i = 0;
            while (true) {
                long start = System.nanoTime();
                if (start >= end) {
                    break;
                }
                if (start >= warmEnd && coldAtStart < 0) {
                    coldAtStart = coldGets.sum();
                }
                client.get(key(i++ % hotKeys));
                if (start >= warmEnd) {
                    hot.recordValue(System.nanoTime() - start);
                }
            }
            JsonObject json = new JsonObject();
            json.addProperty("hot_gets", hot.getTotalCount());
            json.addProperty("hot_p50_us", hot.getValueAtPercentile(50) / 1000.0);
            json.addProperty("hot_p99_us", hot.getValueAtPercentile(99) / 1000.0);
            json.addProperty("hot_p999_us", hot.getValueAtPercentile(99.9) / 1000.0);
            json.addProperty("hot_max_us", hot.getMaxValue() / 1000.0);
            json.addProperty(
                    "cold_gets_per_sec", (coldGets.sum() - coldAtStart) / (double) seconds);
            return json;
        } finally {
            stop.set(true);
            for (Thread t : cold) {
                t.join();
            }
        }
    }

    private void readCold(KeyValueClient client, AtomicBoolean stop, LongAdder done) {
        ArrayDeque<CompletableFuture<ByteArrayWrapper>> window = new ArrayDeque<>();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try (client) {
            while (!stop.get()) {
                while (window.size() < coldWindow) {
                    window.add(client.getAsync(key(random.nextInt(hotKeys, keys))));
                }
                window.poll().join();
                done.increment();
            }
            window.forEach(CompletableFuture::join);
        } catch (RuntimeException e) {
            if (!stop.get()) {
                throw e;
            }
        }
    }
}
