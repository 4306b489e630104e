package dbf0.base.client;

import com.google.gson.Gson;

/**
 * What a connector counted: SETs sent, GETs answered, GETs that found their key, and GETs that
 * missed a key the client's tracker knew was set. Serialised with Gson to exactly {@code
 * {"set":..,"get":..,"found":..,"missingKey":..}}, the seed's result format.
 *
 * <p>Not thread-safe: each connector counts into its own, and {@link #add} sums them afterwards.
 */
public final class KeyValueClientStats {

    private static final Gson GSON = new Gson();

    private long set;
    private long get;
    private long found;
    private long missingKey;
    // transient: Gson leaves them out, so the seed's four-field JSON stays exactly as it was; the
    // Benchmark reports them itself, for keyed workloads only
    private transient long insert;
    private transient long readModifyWrite;
    private transient long redirects;

    public void countSet() {
        set++;
    }

    /** Counts one acknowledged SET of a new record (keyed workloads). */
    public void countInsert() {
        insert++;
    }

    /** Counts one read-modify-write, a GET and a SET of one record, as one operation. */
    public void countReadModifyWrite() {
        readModifyWrite++;
    }

    /** Counts one MOVED reply that was followed: its operations were sent again, elsewhere. */
    public void countRedirect() {
        redirects++;
    }

    /** Counts one answered GET. */
    public void countGet(boolean wasFound, boolean wasMissing) {
        get++;
        if (wasFound) {
            found++;
        } else if (wasMissing) {
            missingKey++;
        }
    }

    public long getSet() {
        return set;
    }

    public long getGet() {
        return get;
    }

    public long getInsert() {
        return insert;
    }

    public long getReadModifyWrite() {
        return readModifyWrite;
    }

    /** MOVED replies followed (a cluster's slot moved during the run); not operations. */
    public long getRedirects() {
        return redirects;
    }

    /** Every operation counted: GETs, SETs, inserts and read-modify-writes. */
    public long getOperations() {
        return set + get + insert + readModifyWrite;
    }

    public long getFound() {
        return found;
    }

    public long getMissingKey() {
        return missingKey;
    }

    /** Adds {@code other}'s counts into this one. */
    public KeyValueClientStats add(KeyValueClientStats other) {
        set += other.set;
        get += other.get;
        found += other.found;
        missingKey += other.missingKey;
        insert += other.insert;
        readModifyWrite += other.readModifyWrite;
        redirects += other.redirects;
        return this;
    }

    public String toJson() {
        return GSON.toJson(this);
    }

    public static KeyValueClientStats fromJson(String json) {
        return GSON.fromJson(json, KeyValueClientStats.class);
    }

    @Override
    public String toString() {
        return toJson();
    }
}
