package dbf0.kv.nemesis;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What clients saw, counted: a client's own, merged into the run's at the end. {@link #answers()}
 * counts replies and failures by kind: {@code MOVED}, {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code
 * timeout}, {@code connection lost}, {@code connect failed}, ...
 */
public final class Tally {
    long okReads;
    long okWrites;
    long pendingReads;
    long pendingWrites;
    long failed;
    private final Map<String, Long> answers = new TreeMap<>();

    Tally() {}

    void saw(String kind) {
        answers.merge(kind, 1L, Long::sum);
    }

    void add(Tally other) {
        okReads += other.okReads;
        okWrites += other.okWrites;
        pendingReads += other.pendingReads;
        pendingWrites += other.pendingWrites;
        failed += other.failed;
        other.answers.forEach((k, v) -> answers.merge(k, v, Long::sum));
    }

    /** GETs answered. */
    public long okReads() {
        return okReads;
    }

    /** SETs acknowledged. */
    public long okWrites() {
        return okWrites;
    }

    /** GETs whose answer never came. */
    public long pendingReads() {
        return pendingReads;
    }

    /** SETs whose outcome is unknown. */
    public long pendingWrites() {
        return pendingWrites;
    }

    /** Operations every node refused before running them. */
    public long failed() {
        return failed;
    }

    /** Error replies and failures by kind, in name order. */
    public Map<String, Long> answers() {
        return Collections.unmodifiableMap(answers);
    }
}
