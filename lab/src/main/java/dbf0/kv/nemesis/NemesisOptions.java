package dbf0.kv.nemesis;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the nemesis's clients run.
 *
 * @param nodes the cluster's nodes, in {@code --cluster-nodes} order
 * @param shards how they group into shards ({@code --cluster-replicas})
 * @param clients client threads, each with its own connections
 * @param keys how many keys they share
 * @param writeFraction the share of operations that are SETs; the rest are GETs
 * @param onceFraction the share of SETs that write a key of their own, never written again
 * @param duration how long the clients run before the final reads
 * @param replyTimeout how long a command waits for its reply; past it the outcome is unknown
 * @param retryFor how long an operation is sent again after refusals (MOVED, CLUSTERDOWN, a
 *     connection that would not open) before it is given up as failed
 * @param think a pause after each operation of a client, to spare the CPU; zero for none
 * @param finalWithin how long the final reads may take, the cluster healed, before the run fails
 * @param seed the clients' random seed
 * @param history where the history goes
 */
public record NemesisOptions(
        List<ClusterNode> nodes,
        Shards shards,
        int clients,
        int keys,
        double writeFraction,
        double onceFraction,
        Duration duration,
        Duration replyTimeout,
        Duration retryFor,
        Duration think,
        Duration finalWithin,
        long seed,
        Path history) {

    public NemesisOptions {
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(shards, "shards");
        Objects.requireNonNull(history, "history");
        if (shards.nodes() != nodes.size()) {
            throw new IllegalArgumentException(
                    nodes.size() + " nodes listed but the shards are of " + shards.nodes());
        }
        if (clients < 1) {
            throw new IllegalArgumentException("--clients must be at least 1, got " + clients);
        }
        if (!(writeFraction >= 0 && writeFraction <= 1)) {
            throw new IllegalArgumentException(
                    "--write-fraction must be between 0 and 1, got " + writeFraction);
        }
        if (!(onceFraction >= 0 && onceFraction <= 1)) {
            throw new IllegalArgumentException(
                    "--once-fraction must be between 0 and 1, got " + onceFraction);
        }
        for (Duration d : List.of(duration, replyTimeout, retryFor, finalWithin)) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("durations must be positive, got " + d);
            }
        }
        if (think.isNegative()) {
            throw new IllegalArgumentException("--think must not be negative, got " + think);
        }
    }
}
