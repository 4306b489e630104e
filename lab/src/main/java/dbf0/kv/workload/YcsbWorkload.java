package dbf0.kv.workload;

import java.util.Locale;

/**
 * YCSB's core workloads as data: each is an operation mix and a key distribution, as published in
 * YCSB's {@code workloads/workloada..f} files. E (short range scans) is left out: no dbf0 protocol
 * has a scan operation, and only the {@code skiplist} backend keeps keys sorted.
 */
public enum YcsbWorkload {
    /** Update heavy: 50% reads, 50% updates, zipfian (a session store recording recent actions). */
    A(new OperationMix(0.5, 0.5, 0, 0), "zipfian"),
    /** Read mostly: 95% reads, 5% updates, zipfian (photo tagging). */
    B(new OperationMix(0.95, 0.05, 0, 0), "zipfian"),
    /** Read only, zipfian (a user-profile cache). */
    C(new OperationMix(1, 0, 0, 0), "zipfian"),
    /** Read latest: 95% reads, 5% inserts, the newest records most read (status updates). */
    D(new OperationMix(0.95, 0, 0.05, 0), "latest"),
    /**
     * Read-modify-write: 50% reads, 50% read-then-write of one record, zipfian (a user database).
     */
    F(new OperationMix(0.5, 0, 0, 0.5), "zipfian");

    /**
     * Records loaded before the run when --records is not given: enough that the hot set is not the
     * whole map.
     */
    public static final long DEFAULT_RECORDS = 100_000;

    private final OperationMix mix;
    private final String keyDistribution;

    YcsbWorkload(OperationMix mix, String keyDistribution) {
        this.mix = mix;
        this.keyDistribution = keyDistribution;
    }

    public OperationMix mix() {
        return mix;
    }

    /** The name of the workload's {@link KeyDistribution}. */
    public String keyDistribution() {
        return keyDistribution;
    }

    /** A, B, C, D or F, either case. */
    public static YcsbWorkload parse(String text) {
        try {
            return valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--workload is one of A, B, C, D, F (YCSB's core workloads; E needs "
                            + "range scans, which dbf0 has not), got '"
                            + text
                            + "'");
        }
    }
}
