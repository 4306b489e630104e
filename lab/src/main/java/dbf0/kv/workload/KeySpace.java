package dbf0.kv.workload;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The records a keyed workload works on: {@code records} loaded before the measured interval
 * (indexes {@code 0..records-1}), and the inserts made during it, which take the next indexes in
 * order. Shared by all load threads, so that "the latest key" means the same to all of them.
 *
 * <p>An index is claimed by {@link #claimInsert()} before its SET reaches the server, so a read
 * that picks a just-claimed index may find nothing: YCSB guards against that with an
 * acknowledgement window; here it shows up in the {@code get - found} count and is left at that.
 */
public final class KeySpace {

    private final long records;
    private final AtomicLong next;

    public KeySpace(long records) {
        checkArgument(records >= 1, "records must be at least 1, got %s", records);
        this.records = records;
        this.next = new AtomicLong(records);
    }

    /** How many records were loaded before the run. */
    public long records() {
        return records;
    }

    /** How many indexes exist now: the loaded records plus the inserts claimed so far. */
    public long count() {
        return next.get();
    }

    /** The index for a new record. */
    public long claimInsert() {
        return next.getAndIncrement();
    }
}
