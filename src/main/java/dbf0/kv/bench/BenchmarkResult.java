package dbf0.kv.bench;

import com.google.gson.JsonObject;
import dbf0.kv.client.KeyValueClientStats;

/**
 * What one benchmark run measured. {@link #toJson()} keeps the seed's four counters under their
 * seed names (the 2020 study's analysis reads them) and adds the derived figures.
 *
 * @param seconds the measured interval: from starting the clients to their having all stopped
 * @param errors connections that failed while the run was going on
 */
public record BenchmarkResult(KeyValueClientStats stats, double seconds, long errors) {

  public double opsPerSecond() {
    return (stats.getSet() + stats.getGet()) / seconds;
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    json.addProperty("set", stats.getSet());
    json.addProperty("get", stats.getGet());
    json.addProperty("found", stats.getFound());
    json.addProperty("missingKey", stats.getMissingKey());
    json.addProperty("errors", errors);
    json.addProperty("seconds", Math.round(seconds * 1000) / 1000.0);
    json.addProperty("ops_per_sec", Math.round(opsPerSecond() * 10) / 10.0);
    return json;
  }
}
