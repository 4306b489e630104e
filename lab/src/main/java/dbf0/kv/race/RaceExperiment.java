package dbf0.kv.race;

import dbf0.base.client.BaseClient;
import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.client.V1Client;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.storage.MapBackends;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Runs the HashMap race demo: a multi-threaded server over the chosen map, {@link RaceWriter}s that
 * make the map grow, and {@link RaceChecker}s that look for keys that vanish. The command line is
 * {@code dbf0 race} (dbf0.cli.CreateHashMapRaceCondition); tests call {@link #run} directly.
 */
public final class RaceExperiment {

    /**
     * @param duration how long the load runs (on a thread-unsafe map: at least this long)
     * @param stopAtFirstMiss end the run as soon as a miss is seen
     * @param progress receives a line every {@code progressInterval}; null for none
     * @param giveUpAfter on a thread-unsafe map only: when {@code duration} has passed without a
     *     miss, the load stays on until the first miss, but never past this time since the start. A
     *     value no longer than {@code duration} turns the extension off. Thread-safe maps always
     *     run for {@code duration}.
     * @param history records every checker and writer operation; null for none. The caller finishes
     *     it after {@link #run} returns.
     */
    public record Config(
            String mapType,
            int serverThreads,
            int checkers,
            int writers,
            Duration duration,
            double checkerSetFraction,
            boolean stopAtFirstMiss,
            Duration progressInterval,
            Consumer<String> progress,
            long seed,
            Duration giveUpAfter,
            HistoryRecorder history) {

        /** The demo's default cap on the wait for a first miss on a thread-unsafe map. */
        public static final Duration DEFAULT_GIVE_UP_AFTER = Duration.ofSeconds(120);

        public static Config defaults(String mapType, Duration duration) {
            return builder(mapType, duration).build();
        }

        /**
         * The demo's defaults: 4 server threads, 2 checkers, 2 writers, progress off, a new seed.
         */
        public static Builder builder(String mapType, Duration duration) {
            return new Builder(mapType, duration);
        }

        /** Names the settings, so that no call site has to count positions. */
        public static final class Builder {
            private final String mapType;
            private final Duration duration;
            private int serverThreads = 4;
            private int checkers = 2;
            private int writers = 2;
            private double checkerSetFraction = 0.05;
            private boolean stopAtFirstMiss;
            private Duration progressInterval = Duration.ofMillis(500);
            private Consumer<String> progress;
            private long seed = System.nanoTime();
            private Duration giveUpAfter = DEFAULT_GIVE_UP_AFTER;
            private HistoryRecorder history;

            private Builder(String mapType, Duration duration) {
                this.mapType = mapType;
                this.duration = duration;
            }

            public Builder serverThreads(int n) {
                serverThreads = n;
                return this;
            }

            public Builder checkers(int n) {
                checkers = n;
                return this;
            }

            public Builder writers(int n) {
                writers = n;
                return this;
            }

            public Builder checkerSetFraction(double fraction) {
                checkerSetFraction = fraction;
                return this;
            }

            public Builder stopAtFirstMiss(boolean on) {
                stopAtFirstMiss = on;
                return this;
            }

            /** Sends a progress line to {@code sink} every {@code interval}. */
            public Builder progress(Duration interval, Consumer<String> sink) {
                progressInterval = interval;
                progress = sink;
                return this;
            }

            public Builder seed(long s) {
                seed = s;
                return this;
            }

            public Builder giveUpAfter(Duration d) {
                giveUpAfter = d;
                return this;
            }

            public Builder history(HistoryRecorder recorder) {
                history = recorder;
                return this;
            }

            public Config build() {
                return new Config(
                        mapType,
                        serverThreads,
                        checkers,
                        writers,
                        duration,
                        checkerSetFraction,
                        stopAtFirstMiss,
                        progressInterval,
                        progress,
                        seed,
                        giveUpAfter,
                        history);
            }
        }

        /** The time after which the load stops even though no miss has been seen. */
        Duration hardLimit() {
            return MapBackends.isThreadSafe(mapType) || giveUpAfter.compareTo(duration) <= 0
                    ? duration
                    : giveUpAfter;
        }
    }

    /** One certain miss: when (since the start), which key, and how big the map was then. */
    public record MissEvent(long nanos, int key, int mapSize) {}

    /** Misses kept for the report; the counters go on past this. */
    private static final int MAX_EVENTS = 100_000;

    private RaceExperiment() {}

    public static RaceReport run(Config config) throws IOException, InterruptedException {
        KeyValueServer server =
                new KeyValueServer(
                        new InetSocketAddress("127.0.0.1", 0),
                        config.serverThreads(),
                        MapBackends.create(config.mapType()));
        server.start();
        try {
            return run(config, server);
        } finally {
            server.close();
        }
    }

    private static RaceReport run(Config config, KeyValueServer server)
            throws InterruptedException {
        InetSocketAddress address = server.getLocalAddress();
        long start = System.nanoTime();
        List<MissEvent> events = new ArrayList<>();
        RaceChecker.Shared shared =
                new RaceChecker.Shared(
                        key -> {
                            MissEvent event =
                                    new MissEvent(System.nanoTime() - start, key, server.size());
                            synchronized (events) {
                                if (events.size() < MAX_EVENTS) {
                                    events.add(event);
                                }
                            }
                        });
        LongAdder writerSets = new LongAdder();
        Random seeds = new Random(config.seed());
        List<BaseConnector> connectors = new ArrayList<>();
        HistoryRecorder history = config.history();
        // History client ids: checkers 0..checkers-1, then the writers.
        for (int i = 0; i < config.checkers(); i++) {
            connectors.add(
                    new RaceChecker(
                            address,
                            "checker-" + i,
                            shared,
                            config.checkerSetFraction(),
                            new Random(seeds.nextLong()),
                            history == null ? null : history.log(),
                            i));
        }
        for (int i = 0; i < config.writers(); i++) {
            connectors.add(
                    new RaceWriter(
                            address,
                            "writer-" + i,
                            writerSets,
                            new Random(seeds.nextLong()),
                            history == null ? null : history.log(),
                            config.checkers() + i));
        }
        BaseClient<BaseConnector> client = new BaseClient<>(connectors);
        client.start();
        long deadline = start + config.duration().toNanos();
        long hardDeadline = start + config.hardLimit().toNanos();
        long interval = config.progressInterval().toNanos();
        long nextReport = start + interval;
        boolean extended = false;
        try {
            while (true) {
                long now = System.nanoTime();
                boolean missed = shared.misses.sum() > 0;
                if (now >= hardDeadline
                        || (now >= deadline && missed)
                        || (config.stopAtFirstMiss() && missed)) {
                    break;
                }
                if (now >= deadline && !extended) {
                    extended = true;
                    if (config.progress() != null) {
                        config.progress()
                                .accept(
                                        String.format(
                                                "No miss yet after %.1f s: the load stays on until"
                                                        + " the first miss (giving up at %.0f s).",
                                                (now - start) / 1e9,
                                                config.hardLimit().toMillis() / 1000.0));
                    }
                }
                if (config.progress() != null && now >= nextReport) {
                    config.progress().accept(progressLine(now - start, server, shared, writerSets));
                    nextReport += interval;
                }
                Thread.sleep(
                        Math.max(
                                1,
                                Math.min(
                                        20,
                                        (Math.min(hardDeadline, nextReport) - now) / 1_000_000)));
            }
        } finally {
            client.stopAndJoin();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        List<Integer> lost = lostForGood(address, shared);
        List<MissEvent> snapshot;
        synchronized (events) {
            snapshot = List.copyOf(events);
        }
        return RaceReport.builder(config.mapType(), config.serverThreads(), seconds)
                .checkerSets(shared.sets.sum())
                .checkerGets(shared.gets.sum())
                .missedGets(shared.misses.sum())
                .distinctKeysMissed(shared.distinctKeysMissed())
                .wrongValues(shared.wrongValues.sum())
                .confirmedKeys(shared.confirmedKeys())
                .writerSets(writerSets.sum())
                .finalSize(server.size())
                .lostKeys(lost)
                .events(snapshot)
                .connectionErrors(client.totalErrors())
                .threads(config.writers(), config.checkers())
                .build();
    }

    static String progressLine(
            long nanos, KeyValueServer server, RaceChecker.Shared shared, LongAdder writerSets) {
        return String.format(
                "%6.1f s  map size %,9d   checker: %,7d sets %,9d gets %,6d missing   writer: %,9d"
                        + " sets",
                nanos / 1e9,
                server.size(),
                shared.sets.sum(),
                shared.gets.sum(),
                shared.misses.sum(),
                writerSets.sum());
    }

    /**
     * After the load stops the map is quiet: a confirmed key that a GET still cannot find now was
     * not merely hidden by a resize, it was dropped (overwritten by a racing put).
     */
    private static List<Integer> lostForGood(InetSocketAddress address, RaceChecker.Shared shared) {
        List<Integer> lost = new ArrayList<>();
        for (int k = 0; k < RaceChecker.KEYS; k++) {
            if (!shared.isConfirmed(k)) {
                continue;
            }
            try (Socket socket = new Socket()) {
                socket.setSoTimeout(5_000);
                socket.connect(address, 5_000);
                if (V1Client.get(socket, ByteArrayWrapper.of(k)) == null) {
                    lost.add(k);
                }
            } catch (IOException e) {
                break; // the server is unreachable: report what was checked
            }
        }
        return lost;
    }
}
