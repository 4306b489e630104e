package dbf0.kv.bench;

import com.google.gson.Gson;

/**
 * What a load generator counted: SETs sent, GETs answered, GETs that found their key, and GETs
 * that missed a key the client's tracker knew was set. Serialised with Gson to exactly
 * {@code {"set":..,"get":..,"found":..,"missingKey":..}}, the seed's result format.
 *
 * <p>Not thread-safe: each connector counts into its own, and {@link #add} sums them afterwards.
 */
public final class KeyValueClientStats {

  private static final Gson GSON = new Gson();

  private long set;
  private long get;
  private long found;
  private long missingKey;

  public void countSet() {
    set++;
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
