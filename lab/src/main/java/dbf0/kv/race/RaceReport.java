package dbf0.kv.race;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dbf0.common.Words;
import java.util.ArrayList;
import java.util.List;

/**
 * What a race demo run saw, with the explanation a student needs: how many GETs missed a key the
 * checker had already seen stored, when, at which map sizes, and which resize points were nearest.
 */
public record RaceReport(
        String mapType,
        int serverThreads,
        double seconds,
        long checkerSets,
        long checkerGets,
        long missedGets,
        int distinctKeysMissed,
        long wrongValues,
        int confirmedKeys,
        long writerSets,
        int finalSize,
        List<Integer> lostKeys,
        List<RaceExperiment.MissEvent> events,
        long connectionErrors,
        int writers,
        int checkers) {

    /** A report with nothing counted yet; the builder names each count. */
    public static Builder builder(String mapType, int serverThreads, double seconds) {
        return new Builder(mapType, serverThreads, seconds);
    }

    /** Names the sixteen components, so that no call site has to count positions. */
    public static final class Builder {
        private final String mapType;
        private final int serverThreads;
        private final double seconds;
        private long checkerSets;
        private long checkerGets;
        private long missedGets;
        private int distinctKeysMissed;
        private long wrongValues;
        private int confirmedKeys;
        private long writerSets;
        private int finalSize;
        private List<Integer> lostKeys = List.of();
        private List<RaceExperiment.MissEvent> events = List.of();
        private long connectionErrors;
        private int writers = 1;
        private int checkers = 1;

        private Builder(String mapType, int serverThreads, double seconds) {
            this.mapType = mapType;
            this.serverThreads = serverThreads;
            this.seconds = seconds;
        }

        public Builder checkerSets(long n) {
            checkerSets = n;
            return this;
        }

        public Builder checkerGets(long n) {
            checkerGets = n;
            return this;
        }

        public Builder missedGets(long n) {
            missedGets = n;
            return this;
        }

        public Builder distinctKeysMissed(int n) {
            distinctKeysMissed = n;
            return this;
        }

        public Builder wrongValues(long n) {
            wrongValues = n;
            return this;
        }

        public Builder confirmedKeys(int n) {
            confirmedKeys = n;
            return this;
        }

        public Builder writerSets(long n) {
            writerSets = n;
            return this;
        }

        public Builder finalSize(int n) {
            finalSize = n;
            return this;
        }

        public Builder lostKeys(List<Integer> keys) {
            lostKeys = keys;
            return this;
        }

        public Builder events(List<RaceExperiment.MissEvent> misses) {
            events = misses;
            return this;
        }

        public Builder connectionErrors(long n) {
            connectionErrors = n;
            return this;
        }

        /** How many writer and checker threads ran, for the summary's wording. */
        public Builder threads(int writerThreads, int checkerThreads) {
            writers = writerThreads;
            checkers = checkerThreads;
            return this;
        }

        public RaceReport build() {
            return new RaceReport(
                    mapType,
                    serverThreads,
                    seconds,
                    checkerSets,
                    checkerGets,
                    missedGets,
                    distinctKeysMissed,
                    wrongValues,
                    confirmedKeys,
                    writerSets,
                    finalSize,
                    lostKeys,
                    events,
                    connectionErrors,
                    writers,
                    checkers);
        }
    }

    /** Misses closer than this in time belong to one burst (one resize, as a rule). */
    private static final long BURST_GAP_NANOS = 100_000_000L;

    /** A run of misses close together in time. */
    public record Burst(double atSeconds, int misses, int keys, int minSize, int maxSize) {
        /** The resize point at or below the smallest map size seen in the burst. */
        public long resizePoint() {
            return ResizePoints.atOrBelow(minSize);
        }
    }

    public List<Burst> bursts() {
        List<Burst> bursts = new ArrayList<>();
        int i = 0;
        while (i < events.size()) {
            int j = i;
            java.util.Set<Integer> keys = new java.util.HashSet<>();
            int min = Integer.MAX_VALUE;
            int max = 0;
            while (j < events.size()
                    && (j == i
                            || events.get(j).nanos() - events.get(j - 1).nanos()
                                    < BURST_GAP_NANOS)) {
                RaceExperiment.MissEvent e = events.get(j);
                keys.add(e.key());
                min = Math.min(min, e.mapSize());
                max = Math.max(max, e.mapSize());
                j++;
            }
            bursts.add(new Burst(events.get(i).nanos() / 1e9, j - i, keys.size(), min, max));
            i = j;
        }
        return bursts;
    }

    /** The summary in plain words. */
    public String toText() {
        StringBuilder s = new StringBuilder();
        s.append(
                String.format(
                        "%nSummary: map '%s', %s, %.1f s%n",
                        mapType, Words.count(serverThreads, "server thread"), seconds));
        String who =
                writers == 0
                        ? "No writer ran"
                        : writers == 1 ? "The writer stored" : "The " + writers + " writers stored";
        s.append(
                String.format(
                        "  %s%s; the map ended with %s, growing through %s.%n",
                        who,
                        writers == 0 ? "" : " " + Words.count(writerSets, "new key"),
                        Words.count(finalSize, "entry", "entries"),
                        Words.count(ResizePoints.countBetween(0, finalSize), "resize point")));
        s.append(
                String.format(
                        "  %s confirmed %d of 256 one-byte keys (a GET had found each), "
                                + "then sent %s (and %s).%n",
                        checkers == 1 ? "The checker" : "The " + checkers + " checkers",
                        confirmedKeys,
                        Words.count(checkerGets, "GET"),
                        Words.count(checkerSets, "SET")));
        if (missedGets == 0) {
            s.append("  No GET missed a confirmed key: the map never lost sight of a stored key");
            s.append(
                    mapType.equals("hashmap")
                            ? (" in %.0f s (the race is real but timing-dependent: run again, or"
                                            + " give it longer with --give-up-after).%n")
                                    .formatted(seconds)
                            : ", even while it resized under load.%n".formatted());
        } else {
            s.append(
                    String.format(
                            "  %s back \"not found\" for a key the checkers had already seen"
                                    + " stored (%s).%n",
                            Words.count(missedGets, "GET came", "GETs came"),
                            Words.count(distinctKeysMissed, "distinct key")));
            s.append("  Nothing in this demo deletes keys, so a correct map never does that.\n");
            RaceExperiment.MissEvent first = events.get(0);
            s.append(
                    String.format(
                            "  First miss after %.2f s: key 0x%02x, when the map held %s; the"
                                    + " resize point just below is %,d (= 0.75 x %,d).%n",
                            first.nanos() / 1e9,
                            first.key(),
                            Words.count(first.mapSize(), "entry", "entries"),
                            ResizePoints.atOrBelow(first.mapSize()),
                            ResizePoints.capacityOf(ResizePoints.atOrBelow(first.mapSize()))));
            List<Burst> bursts = bursts();
            s.append(
                    String.format(
                            "  The misses came in %s:%n", Words.count(bursts.size(), "burst")));
            for (Burst b : bursts.subList(0, Math.min(10, bursts.size()))) {
                s.append(
                        String.format(
                                "    at %6.2f s: %,5d %s of %3d %s, map size %,d..%,d, just past"
                                        + " the resize point %,d%n",
                                b.atSeconds(),
                                b.misses(),
                                Words.noun(b.misses(), "miss", "misses"),
                                b.keys(),
                                Words.noun(b.keys(), "key"),
                                b.minSize(),
                                b.maxSize(),
                                b.resizePoint()));
            }
            if (bursts.size() > 10) {
                s.append(
                        String.format(
                                "    ... and %s more%n", Words.count(bursts.size() - 10, "burst")));
            }
            s.append(
                    "  Why: HashMap is not thread-safe. When a put takes the size past 0.75 x"
                            + " capacity, resize()\n");
            s.append(
                    "  publishes a new, empty table and then moves the old bins into it one at a"
                            + " time. A get on\n");
            s.append(
                    "  another server thread during that copy looks in the new table and misses"
                            + " every key whose\n");
            s.append(
                    "  bin has not been moved yet. Between resizes the misses stop. Hashtable (one"
                            + " lock) and\n");
            s.append("  ConcurrentHashMap (a resize that readers can follow) never show this.\n");
        }
        if (!lostKeys.isEmpty()) {
            s.append(
                    String.format(
                            "  %s lost for good: still missing after the load stopped (%s).%n",
                            Words.count(
                                    lostKeys.size(), "confirmed key was", "confirmed keys were"),
                            hexList(lostKeys)));
            s.append("  Two puts raced on one bin and one overwrote the other's entry.\n");
        } else if (confirmedKeys > 0) {
            s.append(
                    "  After the load stopped every confirmed key was found again: nothing was lost"
                            + " for good.\n");
        }
        if (wrongValues > 0) {
            s.append(
                    String.format(
                            "  %s a value that was never stored under that key.%n",
                            Words.count(wrongValues, "GET returned", "GETs returned")));
        }
        return s.toString();
    }

    private static String hexList(List<Integer> keys) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(keys.size(), 16); i++) {
            s.append(i == 0 ? "" : " ").append(String.format("0x%02x", keys.get(i)));
        }
        return keys.size() > 16 ? s + " ..." : s.toString();
    }

    /** The machine-readable form printed by {@code race --json}. */
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("map_type", mapType);
        json.addProperty("server_threads", serverThreads);
        json.addProperty("seconds", Math.round(seconds * 1000) / 1000.0);
        json.addProperty("missing_keys", missedGets);
        json.addProperty("distinct_keys_missed", distinctKeysMissed);
        json.addProperty("lost_for_good", lostKeys.size());
        json.addProperty("wrong_values", wrongValues);
        json.addProperty("sets", checkerSets);
        json.addProperty("gets", checkerGets);
        json.addProperty("confirmed_keys", confirmedKeys);
        json.addProperty("writer_sets", writerSets);
        json.addProperty("final_size", finalSize);
        json.addProperty("connection_errors", connectionErrors);
        if (!events.isEmpty()) {
            json.addProperty(
                    "first_miss_seconds", Math.round(events.get(0).nanos() / 1e6) / 1000.0);
        }
        JsonArray bursts = new JsonArray();
        for (Burst b : bursts()) {
            JsonObject o = new JsonObject();
            o.addProperty("at_seconds", Math.round(b.atSeconds() * 1000) / 1000.0);
            o.addProperty("misses", b.misses());
            o.addProperty("keys", b.keys());
            o.addProperty("map_size_min", b.minSize());
            o.addProperty("map_size_max", b.maxSize());
            o.addProperty("resize_point", b.resizePoint());
            bursts.add(o);
        }
        json.add("bursts", bursts);
        return json;
    }
}
